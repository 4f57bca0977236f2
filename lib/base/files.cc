#include "base/files.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/signals.h"

namespace router {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a path finally names: symlinks followed one by one (so a dangling link names the
// file it would create), at most as many hops as the kernel allows.
std::string follow_links(const std::string& path) {
  std::string p = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0) return p;
    std::string next(buf, static_cast<size_t>(n));
    p = next.front() == '/' ? next : dir_of(p) + "/" + next;
  }
  throw IoError("cannot write " + path + ": too many levels of symbolic links");
}

bool special(mode_t mode) {
  return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode);
}

// The process's umask, read without leaving it changed.
mode_t current_umask() {
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// A directory entry is durable once its directory is synced. Filesystems that cannot sync a
// directory say EINVAL; only an I/O error is worth failing for.
void sync_dir(const std::string& dir, const std::string& path) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err == EIO) throw IoError("cannot write " + path + ": " + std::strerror(err));
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    file_ = stdout;
    return;
  }
  target_ = follow_links(path_);
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0) {
    // Caught here, not by the final rename after all the work.
    if (S_ISDIR(st.st_mode)) throw IoError("cannot write " + path_ + ": it is a directory");
    if (special(st.st_mode)) {
      // Written in place, as a shell's `>` would; opening a FIFO waits for its reader.
      const int fd = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) fail("cannot write " + path_);
      file_ = ::fdopen(fd, "wb");
      if (!file_) {
        ::close(fd);
        fail("cannot write " + path_);
      }
      owned_ = true;
      return;
    }
    has_old_ = true;
    old_mode_ = st.st_mode & 07777;
    old_uid_ = st.st_uid;
    old_gid_ = st.st_gid;
  }
  std::string name = target_ + ".tmp.XXXXXX";
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);  // 0600, O_EXCL
  if (fd < 0) fail("cannot write " + path_);
  temp_ = name;
  signal_slot_ = register_temp_file(temp_.c_str());  // a second Ctrl-C removes it too
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    fail("cannot write " + path_);
  }
  owned_ = true;
}

OutputFile::~OutputFile() {
  if (file_ && owned_) std::fclose(file_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  unregister_temp_file(signal_slot_);
}

void OutputFile::fail(const std::string& what) {
  if (errno == EINTR && interrupted()) throw InterruptedError();
  throw IoError(what + ": " + errno_text());
}

void OutputFile::write(std::string_view data) {
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    fail(path_ == "-" ? "cannot write to standard output" : "cannot write " + path_);
  }
}

void OutputFile::flush() {
  if (temp_.empty() && std::fflush(file_) != 0) {
    fail(path_ == "-" ? "cannot write to standard output" : "cannot write " + path_);
  }
}

void OutputFile::commit() {
  if (!owned_) {
    if (std::fflush(file_) != 0 || std::ferror(file_)) fail("cannot write to standard output");
    committed_ = true;
    return;
  }
  const std::string what = "cannot write " + path_;
  if (std::fflush(file_) != 0) fail(what);
  const int fd = ::fileno(file_);
  if (!temp_.empty()) {
    if (has_old_) {
      // The owner first: changing it clears set-id bits, which the mode then restores. Who may
      // not give a file away keeps what the system allows (at least the group, if a member).
      if (::fchown(fd, old_uid_, old_gid_) != 0) (void)::fchown(fd, -1, old_gid_);
    }
    const mode_t mode = has_old_ ? old_mode_ : (0666 & ~current_umask());
    if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) fail(what);
  }
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) fail(what);
  if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0) fail(what);
  committed_ = true;
  if (!temp_.empty()) sync_dir(dir_of(target_), path_);
}

void write_output_file(const std::string& path, std::string_view data) {
  OutputFile f(path);
  f.write(data);
  f.commit();
}

void check_writable(const std::string& path) {
  if (path == "-") return;
  const std::string target = follow_links(path);
  struct stat st;
  if (::stat(target.c_str(), &st) == 0 && special(st.st_mode)) {
    if (::access(target.c_str(), W_OK) != 0)
      throw IoError("cannot write " + path + ": " + errno_text());
    return;
  }
  OutputFile probe(path);  // its temporary file goes with it
}

void check_not_input(const std::string& input, const std::string& output) {
  if (input != "-" && output != "-" && same_file(input, output)) {
    throw UsageError("-o " + output + " would overwrite the input " + input);
  }
}

bool stdin_is_a_stream() {
  static const bool stream = [] {
    struct stat st;
    return ::fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode);
  }();
  return stream;
}

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
  if (!S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode)) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace router
