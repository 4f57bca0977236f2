// model_pack IN.json OUT.bin [TEXTS.jsonl ...]: converts a model file into the binary form that
// is compiled into the router executable (lib/model/binary_format.h), after full validation by the
// JSON loader. The texts given (the model's training and validation data) supply its known words:
// the ids of each of their words, so that the built-in model can classify most mail without parsing
// its SentencePiece model at start-up (text/known_words.h).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "base/files.h"
#include "input/dataset.h"
#include "model/binary_format.h"
#include "model/json_format.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: model_pack IN.json OUT.bin [TEXTS.jsonl ...]\n");
    return 2;
  }
  try {
    const router::Model model = router::load_model(argv[1]);
    std::vector<std::string> texts;
    for (int i = 3; i < argc; ++i) {
      for (auto& e : router::read_examples(argv[i], /*need_label=*/false)) {
        texts.push_back(std::move(e.text));
      }
    }
    const std::string words = texts.empty() ? "" : model.tokenizer().known_words_for(texts);
    router::write_output_file(argv[2], router::model_to_binary(model, words));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_pack: %s\n", e.what());
    return 1;
  }
  return 0;
}
