// TsvFile: one tab-separated data file of the Crumb generator (data/crumb/phrases/*.tsv, whose
// README.md describes the format), read whole and checked against the columns its reader expects.
// Lines starting with '#' and empty lines are skipped; the first other line is the header; every
// later line is a row of exactly as many fields, none empty, in UTF-8, with their escapes (\t, \n
// and \\ for a tab, a newline and a backslash) undone. Every error is a PhraseError naming the
// file and the line. Standard library only.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace router::crumb {

// A data file that cannot be read or breaks its format; what() starts with "path:line: " (or
// "path: " when no line is to blame).
struct PhraseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TsvRow {
  int line = 0;                     // 1-based line in the file
  std::vector<std::string> fields;  // escapes undone, one per column
};

class TsvFile {
 public:
  // Reads and checks `path`, whose header must name exactly `columns`, in that order.
  TsvFile(std::filesystem::path path, std::vector<std::string> columns);

  const std::filesystem::path& path() const { return path_; }
  const std::vector<TsvRow>& rows() const { return rows_; }

  // The field of `row` in `column`, which must be one of the file's columns.
  const std::string& field(const TsvRow& row, std::string_view column) const;
  // The field as a whole number from lo to hi (digits only).
  int number(const TsvRow& row, std::string_view column, int lo, int hi) const;
  // The position of the field in `names`, a fixed set of words (all/held/dev, ...).
  size_t choice(const TsvRow& row, std::string_view column,
                std::span<const std::string_view> names) const;
  // yes or no.
  bool yes_no(const TsvRow& row, std::string_view column) const;

  // Throws a PhraseError "path:line: what" (line 0: "path: what").
  [[noreturn]] void fail(int line, const std::string& what) const;

 private:
  size_t column_index(std::string_view column) const;

  std::filesystem::path path_;
  std::vector<std::string> columns_;
  std::vector<TsvRow> rows_;
};

}  // namespace router::crumb
