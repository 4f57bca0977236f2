// libFuzzer target: arbitrary bytes as a dataset file, JSON Lines or a JSON array, read through
// RecordReader and read_examples exactly as `batch`, `eval` and `train` read them. The reader
// takes a path, so each input goes into an anonymous in-memory file (memfd) and is read by its
// /proc/self/fd path: nothing is written to disk, so nothing is left behind however a run ends.
// Promise checked: records or an InputError naming the place, never a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "input/dataset.h"

namespace {

int scratch_fd = -1;
std::string scratch_path;

void write_scratch(const uint8_t* data, size_t size) {
  if (::ftruncate(scratch_fd, 0) != 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::pwrite(scratch_fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  scratch_fd = ::memfd_create("router_fuzz_dataset", MFD_CLOEXEC);
  if (scratch_fd < 0) std::abort();
  scratch_path = "/proc/self/fd/" + std::to_string(scratch_fd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_scratch(data, size);
  try {
    router::RecordReader reader(scratch_path);
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
    router::read_examples(scratch_path, /*need_label=*/false);
  } catch (const router::InputError&) {
  }
  return 0;
}
