// Maildirs: reading the messages of one, and delivering into one without ever losing a message.
// Delivery follows the Maildir protocol: a message is written under tmp/, synced, then renamed
// into new/ (or cur/), so a reader never sees half a message and a crash leaves at most a file in
// tmp/. A message file moved within one file system is renamed, which is atomic: after a crash
// it is in its old place or its new one, never both and never neither. Nothing is ever replaced.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace router {

// True if `path` is a directory with a cur/ or new/ folder.
bool is_maildir(const std::string& path);

// The message files of a Maildir (new/ then cur/, never tmp/) or of a plain folder, each in name
// order; names starting with '.' are skipped.
std::vector<std::string> folder_messages(const std::string& path);

// The flags part of a Maildir message's file name ("2,S" for cur/NAME:2,S), when `file` is in a
// Maildir's cur/; else "".
std::string maildir_flags(const std::string& file);

// A Maildir that messages are delivered into.
class Maildir {
 public:
  // Creates `path` and its tmp/, new/ and cur/ (mode 0700, as mail folders are private) where
  // missing. Throws IoError naming the folder.
  explicit Maildir(std::string path);

  // Writes `message` as a new file and returns its final path: new/NAME, or cur/NAME:INFO when
  // `info` (a Maildir file's flags, e.g. "2,S") is given. Throws IoError.
  std::string deliver(std::string_view message, std::string_view info = "");
  // Moves the file `source` here and returns its final path. A Maildir message keeps its name
  // and its sub-folder (cur/ with its flags, else new/); any other file gets a new name in new/.
  // Renamed when on the same file system; otherwise delivered as a copy, then removed. A file
  // already in this folder stays where it is. Throws IoError; then `source` is untouched.
  std::string move_in(const std::string& source);
  const std::string& path() const { return path_; }

 private:
  std::string unique_name();
  std::string path_;
};

// The folder name for a label: the label itself when it is made of letters, digits, '_', '-'
// and '.' (not first), else with every other byte written %XX, so that no label can name a path
// outside the root ("../x", "a/b") or a hidden folder.
std::string folder_name(const std::string& label);

}  // namespace router
