#include "input/maildir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/errors.h"
#include "base/files.h"

namespace router {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, int error) {
  throw IoError(what + ": " + std::strerror(error));
}

// Makes a rename into or out of `dir` durable: without it, a power cut could undo it.
void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open folder " + dir, errno);
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0 && error != EINVAL) fail("cannot sync folder " + dir, error);
}

void write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write " + path, errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Renames without replacing: 0, or the errno (EEXIST when `to` exists, EXDEV across file
// systems). A file system without RENAME_NOREPLACE gets link + unlink, which also refuses an
// existing `to`.
int rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  ::unlink(from.c_str());
  return 0;
}

bool same_folder(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The host name as a Maildir name may hold it: '/' and ':' written in octal.
std::string host_part() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  std::string out;
  for (const char* c = host; *c; ++c) {
    out += *c == '/' ? "\\057" : *c == ':' ? "\\072" : std::string(1, *c);
  }
  return out;
}

}  // namespace

bool is_maildir(const std::string& path) {
  return fs::is_directory(path + "/cur") || fs::is_directory(path + "/new");
}

std::vector<std::string> folder_messages(const std::string& path) {
  const bool maildir = is_maildir(path);
  std::vector<std::string> all;
  for (const char* sub :
       maildir ? std::vector<const char*>{"/new", "/cur"} : std::vector<const char*>{""}) {
    const std::string dir = path + sub;
    if (!fs::is_directory(dir)) continue;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
        files.push_back(e.path().string());
      }
    }
    std::sort(files.begin(), files.end());
    all.insert(all.end(), files.begin(), files.end());
  }
  return all;
}

std::string maildir_flags(const std::string& file) {
  const fs::path path(file);
  const fs::path parent = path.parent_path();
  if (parent.filename() != "cur" || !is_maildir(parent.parent_path().string())) return "";
  const std::string base = path.filename().string();
  const size_t colon = base.find(':');
  return colon == std::string::npos ? "" : base.substr(colon + 1);
}

Maildir::Maildir(std::string path) : path_(std::move(path)) {
  for (const char* sub : {"", "/tmp", "/new", "/cur"}) {
    const std::string dir = path_ + sub;
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot create " + dir, errno);
    if (!fs::is_directory(dir)) throw IoError(dir + ": not a folder");
  }
}

// time.MusecPpidQn.host: unique on this host as long as the clock does not go back within one
// process, and the counter makes it unique within one process.
std::string Maildir::unique_name() {
  static std::atomic<long> counter{0};
  static const std::string host = host_part();
  timeval now;
  ::gettimeofday(&now, nullptr);
  return std::to_string(now.tv_sec) + ".M" + std::to_string(now.tv_usec) + "P" +
         std::to_string(::getpid()) + "Q" + std::to_string(++counter) + "." + host;
}

std::string Maildir::deliver(std::string_view message, std::string_view info) {
  for (;;) {
    const std::string name = unique_name();
    const std::string temp = path_ + "/tmp/" + name;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + temp, errno);
    try {
      write_all(fd, message, temp);
      if (::fsync(fd) != 0) fail("cannot sync " + temp, errno);
    } catch (...) {
      ::close(fd);
      ::unlink(temp.c_str());
      throw;
    }
    if (::close(fd) != 0) {
      ::unlink(temp.c_str());
      fail("cannot write " + temp, errno);
    }
    const std::string sub = info.empty() ? "/new" : "/cur";
    std::string target = path_ + sub + "/" + name;
    if (!info.empty()) target.append(":").append(info);
    const int error = rename_no_replace(temp, target);
    if (error != 0) {
      ::unlink(temp.c_str());
      if (error == EEXIST) continue;  // a name that is already taken; take another
      fail("cannot move " + temp + " to " + target, error);
    }
    sync_dir(path_ + sub);
    return target;
  }
}

std::string Maildir::move_in(const std::string& source) {
  const fs::path src(source);
  const fs::path parent = src.parent_path().empty() ? fs::path(".") : src.parent_path();
  const std::string base = src.filename().string();
  const std::string from = parent.filename().string();
  // A message of a Maildir keeps its name and flags; anything else is a new message.
  const bool in_maildir = (from == "new" || from == "cur") && is_maildir(parent.parent_path());
  const std::string sub = in_maildir ? "/" + from : "/new";
  if (same_folder(parent.string(), path_ + sub)) return source;
  const std::string info = maildir_flags(source);
  std::string name = in_maildir ? base : unique_name();
  for (;;) {
    const std::string target = path_ + sub + "/" + name;
    const int error = rename_no_replace(source, target);
    if (error == EXDEV) {
      // Another file system: a copy delivered whole, then the original removed. A crash between
      // the two leaves the message in both places, never in neither.
      const std::string copy = deliver(read_file(source), info);
      if (::unlink(source.c_str()) != 0) fail("cannot remove " + source, errno);
      sync_dir(parent.string());
      return copy;
    }
    if (error == 0) {
      sync_dir(path_ + sub);
      sync_dir(parent.string());
      return target;
    }
    if (error != EEXIST) fail("cannot move " + source + " to " + target, error);
    name = unique_name();
    if (!info.empty()) name.append(":").append(info);
  }
}

std::string folder_name(const std::string& label) {
  std::string out;
  for (size_t i = 0; i < label.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(label[i]);
    const bool plain = std::isalnum(c) || c == '_' || c == '-' || (c == '.' && i > 0);
    if (plain && c < 0x80) {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out.empty() ? "%" : out;
}

}  // namespace router
