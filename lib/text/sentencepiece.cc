#include "text/sentencepiece.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>

#include "errors.h"
#include "text/sentencepiece_module.h"

namespace router::spm {
namespace {

constexpr const char* kModuleName = "librouter_sentencepiece.so";

const RouterSpmApi* open_module() {
  const std::string path = module_path();
  const std::string where = "the tokenizer needs router's SentencePiece module (" + path + ")";
  // Opening an open library only counts a reference; the handle is never closed.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw IoError(where + ": " + (why ? why : "cannot open it") +
                  " (ROUTER_SENTENCEPIECE_MODULE can name the module's file)");
  }
  using ApiFn = const RouterSpmApi* (*)();
  const auto get = reinterpret_cast<ApiFn>(dlsym(handle, "router_spm_api"));
  const RouterSpmApi* api = get ? get() : nullptr;
  if (!api || api->abi != ROUTER_SPM_ABI) {
    throw IoError(where + ": not a module for this router (interface " +
                  std::to_string(api ? api->abi : 0) + ", expected " +
                  std::to_string(ROUTER_SPM_ABI) + ")");
  }
  return api;
}

// The module, opened on the first call. A failure is not remembered: the next call tries again.
const RouterSpmApi& api() {
  static std::once_flag once;
  static const RouterSpmApi* api = nullptr;
  std::call_once(once, [] { api = open_module(); });
  return *api;
}

// Collects what the module hands back through its callbacks.
struct Sink {
  std::vector<int32_t>* ids = nullptr;
  std::vector<std::string>* pieces = nullptr;
  std::string text;
  std::string error;

  static void add_ids(void* self, const int* ids, size_t n) {
    static_cast<Sink*>(self)->ids->insert(static_cast<Sink*>(self)->ids->end(), ids, ids + n);
  }
  static void add_piece(void* self, const char* data, size_t size) {
    static_cast<Sink*>(self)->pieces->emplace_back(data, size);
  }
  static void set_text(void* self, const char* data, size_t size) {
    static_cast<Sink*>(self)->text.assign(data, size);
  }
  static void set_error(void* self, const char* data, size_t size) {
    static_cast<Sink*>(self)->error.assign(data, size);
  }
};

[[noreturn]] void fail(const Sink& sink) {
  throw Error(ExitCode::kFailure, "tokenizer: SentencePiece: " + sink.error);
}

}  // namespace

std::string module_path() {
  if (const char* path = std::getenv("ROUTER_SENTENCEPIECE_MODULE"); path && *path) return path;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return kModuleName;  // no /proc: the dynamic loader's search path
  std::string dir(exe, static_cast<size_t>(n));
  dir.erase(dir.rfind('/') + 1);
  return dir + "../lib/router/" + kModuleName;
}

std::unique_ptr<Model> Model::parse(std::string_view serialized) {
  const RouterSpmApi& a = api();
  Sink sink;
  RouterSpm* m = a.parse(serialized.data(), serialized.size(), Sink::set_error, &sink);
  if (!m) throw ModelError("not a valid SentencePiece model (" + sink.error + ")");
  return std::unique_ptr<Model>(new Model(a, m));
}

Model::~Model() { api_.release(model_); }

void Model::encode(std::string_view text, std::vector<int32_t>& ids) const {
  Sink sink;
  sink.ids = &ids;
  if (api_.encode(model_, text.data(), text.size(), Sink::add_ids, Sink::set_error, &sink)) {
    fail(sink);
  }
}

void Model::sample_encode(std::string_view text, float dropout, std::vector<int32_t>& ids) const {
  Sink sink;
  sink.ids = &ids;
  if (api_.sample_encode(model_, text.data(), text.size(), dropout, Sink::add_ids,
                         Sink::set_error, &sink)) {
    fail(sink);
  }
}

std::vector<std::string> Model::encode_pieces(std::string_view text) const {
  std::vector<std::string> pieces;
  Sink sink;
  sink.pieces = &pieces;
  if (api_.encode_pieces(model_, text.data(), text.size(), Sink::add_piece, Sink::set_error,
                         &sink)) {
    fail(sink);
  }
  return pieces;
}

std::optional<std::string> Model::decode(const std::vector<std::string>& pieces) const {
  std::vector<const char*> data;
  std::vector<size_t> sizes;
  for (const auto& p : pieces) {
    data.push_back(p.data());
    sizes.push_back(p.size());
  }
  Sink sink;
  if (api_.decode_pieces(model_, data.data(), sizes.data(), pieces.size(), Sink::set_text,
                         Sink::set_error, &sink)) {
    return std::nullopt;
  }
  return sink.text;
}

int Model::size() const { return api_.piece_count(model_); }

std::string Model::piece(int id) const {
  Sink sink;
  api_.piece(model_, id, Sink::set_text, &sink);
  return sink.text;
}

bool Model::is_control(int id) const { return api_.is_control(model_, id) != 0; }
bool Model::is_byte(int id) const { return api_.is_byte(model_, id) != 0; }
int Model::unk_id() const { return api_.unk_id(model_); }

void set_random_seed(uint32_t seed) { api().set_random_seed(seed); }

std::string train(const std::vector<std::string>& sentences,
                  const std::vector<std::pair<std::string, std::string>>& options) {
  const RouterSpmApi& a = api();
  std::vector<const char*> texts;
  std::vector<size_t> sizes;
  texts.reserve(sentences.size());
  sizes.reserve(sentences.size());
  for (const auto& s : sentences) {
    texts.push_back(s.data());
    sizes.push_back(s.size());
  }
  std::vector<const char*> kv;
  for (const auto& [key, value] : options) {
    kv.push_back(key.c_str());
    kv.push_back(value.c_str());
  }
  Sink sink;
  const int rc = a.train(texts.data(), sizes.data(), texts.size(), kv.data(), options.size(),
                         Sink::set_text, Sink::set_error, &sink);
  if (rc == 2) throw IoError(sink.error);
  if (rc != 0) throw TrainingFailed(sink.error);
  return std::move(sink.text);
}

}  // namespace router::spm
