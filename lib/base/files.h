// Reading and writing the files a command names. Every output goes through OutputFile, whose
// rules are those of `sort -o` and of editors that save atomically (docs/reliability.md, "Output
// files"):
// - "-" is standard output;
// - a regular file, or a path that does not exist yet, is written to a temporary file in the same
//   directory (created 0600), which at commit() gets the old file's mode and, where permitted, its
//   owner (a new file: 0666 & ~umask), is synced and renamed over the target, and the directory
//   synced: the file appears whole or not at all, and an error or signal before commit() leaves
//   the old file as it was and no temporary file behind;
// - a symlink is followed to its final target, which gets the rule above; the link stays a link;
// - a character or block device, a FIFO or a socket is opened and written in place, never renamed
//   over; a write error there (ENOSPC, EPIPE) is an IoError naming the path.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace router {

class OutputFile {
 public:
  // Opens the output now; throws IoError if it cannot (a directory, no permission, ...).
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Removes the temporary file unless commit() succeeded.
  ~OutputFile();

  void write(std::string_view data);  // throws IoError
  // Hands what was written so far to standard output or the device now (a reader waiting on a
  // pipe gets it); a replaced file still appears only at commit(). Throws IoError.
  void flush();
  // Flushes; for a replaced file also sets its mode, syncs and renames it into place. Throws
  // IoError.
  void commit();
  // The temporary file's path, or "" when the output is written in place.
  const std::string& temp_path() const { return temp_; }

 private:
  void fail(const std::string& what);  // throws IoError naming path_ and errno

  std::string path_;    // as the user gave it, for messages
  std::string target_;  // the file that receives the data (symlinks followed)
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;  // file_ is ours to close (not stdout)
  bool committed_ = false;
  bool has_old_ = false;  // target_ existed: keep its mode and owner
  int signal_slot_ = -1;  // register_temp_file's slot for temp_
  unsigned old_mode_ = 0, old_uid_ = 0, old_gid_ = 0;
};

// Writes a whole string to `path` by OutputFile's rules.
void write_output_file(const std::string& path, std::string_view data);

// Throws IoError now, before long work, unless `path` could be written by OutputFile's rules:
// not a directory, and a temporary file can be created next to a regular target (a special
// file must be writable; it is not opened, so a FIFO's reader is not consumed).
void check_writable(const std::string& path);

// Throws UsageError if writing `output` would overwrite the regular file `input` ("-" and
// special files are never the same file).
void check_not_input(const std::string& input, const std::string& output);

// True when standard input is a pipe, a terminal or a socket rather than a regular file: then
// commands answer each record as soon as it is read (a co-process waits for its line back).
bool stdin_is_a_stream();

// Whole file as bytes; throws IoError naming the path.
std::string read_file(const std::string& path);

// True if a and b name the same existing regular file (after links).
bool same_file(const std::string& a, const std::string& b);

}  // namespace router
