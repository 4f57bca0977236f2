// libFuzzer target: arbitrary bytes through the whole text pipeline (UTF-8 check, normalisation,
// pre-tokenisation, BPE) of the tiny test model's tokenizer, and through Model::encode's max_len
// cut. Promise checked: no crash, no sanitizer report, every id inside the vocabulary, and a
// fresh tokenizer on trust (which encodes with a model cut down to the text's pieces,
// piece_subset.h) gives the same ids as the parsed model.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/errors.h"
#include "model/json_format.h"
#include "model/model.h"

namespace {

const router::Model& fixture_model() {
  static const router::Model model = router::load_model(ROUTER_FUZZ_MODEL);
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const router::Model& model = fixture_model();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto ids = model.tokenizer().encode(text);
  for (int32_t id : ids) {
    if (id < 0 || id >= model.tokenizer().vocab_size()) std::abort();
  }
  const router::Tokenizer fresh = router::Tokenizer::from_trusted(
      model.tokenizer().serialized(), model.tokenizer().vocab_size(), router::KnownWords{});
  if (fresh.encode(text) != ids) std::abort();
  model.tokenizer().encode_pieces(text);
  try {
    const auto cut = model.encode(text);
    if (cut.empty() || static_cast<int>(cut.size()) > model.config().max_len) std::abort();
  } catch (const router::InputError&) {
    if (!ids.empty()) std::abort();  // only a text without tokens may be refused
  }
  return 0;
}
