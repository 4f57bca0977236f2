// Output files appear whole or not at all: data goes to a temporary file in the same directory,
// is flushed to disk, and is renamed over the target. An interrupted or failed write leaves any
// earlier file at the path untouched.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace router {

class AtomicFile {
 public:
  // Creates "<path>.tmp.<pid>.<n>" next to `path`; throws IoError if it cannot, or if `path` is
  // a directory (which the final rename would refuse only after all the work).
  explicit AtomicFile(std::string path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFile();

  void write(std::string_view data);  // throws IoError (disk full, ...)
  std::FILE* stream() { return file_; }
  // Flushes, syncs and renames into place; throws IoError.
  void commit();
  const std::string& temp_path() const { return temp_; }

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// Writes a whole string atomically.
void write_file_atomic(const std::string& path, std::string_view data);

// Throws IoError unless a file can be created in the directory of `path` and `path` is not a
// directory.
void check_writable(const std::string& path);

// Whole file as bytes; throws IoError naming the path.
std::string read_file(const std::string& path);

// True if a and b name the same existing file (after links).
bool same_file(const std::string& a, const std::string& b);

}  // namespace router
