// SentencePiece, as router uses it: through its own small module, librouter_sentencepiece.so
// (text/sentencepiece_module.h), opened on first use. Linked into router instead, SentencePiece
// would be loaded, relocated and initialised at the start of every command (about 1.7 ms of the
// 10 ms a one-email `router classify` took), though a mail whose words are all in the model's
// table never needs it (text/known_words.h).
//
// The module is looked for at <the executable's directory>/../lib/router/, where both the build
// tree (build/apps/router -> build/lib/router) and an installation (bin/router -> lib/router) put
// it; the environment variable ROUTER_SENTENCEPIECE_MODULE names another file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct RouterSpm;
struct RouterSpmApi;

namespace router::spm {

// The module's file name as it will be opened.
std::string module_path();

// A parsed SentencePiece model. Const methods are safe to call from many threads at once.
class Model {
 public:
  // Throws ModelError("not a valid SentencePiece model (<reason>)"), or IoError if the module
  // cannot be opened.
  static std::unique_ptr<Model> parse(std::string_view serialized);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Append the ids of `text`. Encoding a parsed model fails only on a bug (here or in
  // SentencePiece): Error(kFailure), not an input error.
  void encode(std::string_view text, std::vector<int32_t>& ids) const;
  // BPE-dropout, from this thread's generator (see set_random_seed).
  void sample_encode(std::string_view text, float dropout, std::vector<int32_t>& ids) const;
  std::vector<std::string> encode_pieces(std::string_view text) const;
  // The text of `pieces`, or nothing if SentencePiece cannot decode them.
  std::optional<std::string> decode(const std::vector<std::string>& pieces) const;

  int size() const;
  std::string piece(int id) const;  // empty for an id out of range
  bool is_control(int id) const;
  bool is_byte(int id) const;
  int unk_id() const;

 private:
  Model(const RouterSpmApi& api, RouterSpm* model) : api_(api), model_(model) {}
  const RouterSpmApi& api_;
  RouterSpm* model_;
};

// Seeds the generator that each thread creates on its first sampling draw.
void set_random_seed(uint32_t seed);

// SentencePiece's trainer reported a failure (bad options, a vocabulary too small, ...).
struct TrainingFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Learns a model from `sentences`, in order, with SentencePiece's trainer set up by `options`.
// Returns the serialized model. Throws TrainingFailed with SentencePiece's message, or IoError if
// the module or the trainer library cannot be opened.
std::string train(const std::vector<std::string>& sentences,
                  const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace router::spm
