#include "atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"

namespace router {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string temp_name(const std::string& path) {
  static std::atomic<int> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(temp_name(path_)) {
  // Caught here, not by the final rename after all the work.
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw IoError("cannot write " + path_ + ": it is a directory");
  }
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) throw IoError("cannot write " + path_ + ": " + errno_text());
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::write(std::string_view data) {
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    throw IoError("cannot write " + path_ + ": " + errno_text());
  }
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    throw IoError("cannot write " + path_ + ": " + errno_text());
  }
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) throw IoError("cannot write " + path_ + ": " + errno_text());
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    throw IoError("cannot rename " + temp_ + " to " + path_ + ": " + errno_text());
  }
  committed_ = true;
}

void write_file_atomic(const std::string& path, std::string_view data) {
  AtomicFile f(path);
  f.write(data);
  f.commit();
}

void check_writable(const std::string& path) { AtomicFile probe(path); }

std::string read_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw IoError("cannot read " + path + ": " + errno_text());
  if (S_ISDIR(st.st_mode)) throw IoError("cannot read " + path + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read " + path + ": " + errno_text());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw IoError("cannot read " + path + ": read error");
  return ss.str();
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace router
