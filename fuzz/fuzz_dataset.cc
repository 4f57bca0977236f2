// libFuzzer target: arbitrary bytes as a dataset file, JSON Lines or a JSON array, read through
// RecordReader and read_examples exactly as `batch`, `eval` and `train` read them. The reader
// takes a path, so each input is written to one scratch file. Promise checked: records or an
// InputError naming the place, never a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "input/dataset.h"

namespace {

// Never destroyed, so the exit handler below can still read it.
const std::string& scratch_path() {
  static const std::string* path = [] {
    const char* dir = std::getenv("TMPDIR");
    return new std::string(std::string(dir ? dir : "/tmp") + "/router_fuzz_dataset." +
                           std::to_string(::getpid()));
  }();
  return *path;
}

// libFuzzer ends a timed run with exit(), so the scratch file goes with the process.
void remove_scratch() { std::remove(scratch_path().c_str()); }

void write_scratch(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (std::atexit(remove_scratch) != 0) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_scratch(data, size);
  try {
    router::RecordReader reader(scratch_path());
    router::Record r;
    while (reader.next(r)) {
      try {
        router::text_field(r);
      } catch (const router::InputError&) {
      }
    }
  } catch (const router::InputError&) {
  }
  try {
    router::read_examples(scratch_path(), /*need_label=*/false);
  } catch (const router::InputError&) {
  }
  return 0;
}
