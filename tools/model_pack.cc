// model_pack IN.json OUT.bin: converts a model file into the binary form that is compiled into
// the router executable (lib/model_binary.h), after full validation by the JSON loader.
#include <cstdio>
#include <exception>

#include "atomic_file.h"
#include "model_binary.h"
#include "model_io.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: model_pack IN.json OUT.bin\n");
    return 2;
  }
  try {
    const router::Model model = router::load_model(argv[1]);
    router::write_file_atomic(argv[2], router::model_to_binary(model));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "model_pack: %s\n", e.what());
    return 1;
  }
  return 0;
}
