// Reading records from the formats people have, told apart by content: JSON Lines, a JSON array
// (first non-blank byte '['), fastText lines ("__label__x some text"), and CSV or TSV with a
// header row that names a "text" column. Every format but the JSON array is streamed one record
// at a time, so memory stays flat for any file size. Every record is a JSON object (fastText gives
// {"label", "text"}, CSV and TSV one string member per column), and every error names the file
// and the line (or array index).
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace router {

enum class DataFormat { kJsonLines, kJsonArray, kFastText, kCsv, kTsv };

// Where a record keeps its text and its label (--text-field, --label-field). Each is a member
// name, or a dotted path into nested objects: "message.body" is value["message"]["body"]. A
// member whose name is the whole string, dots and all, comes first.
struct Fields {
  std::string text = "text";
  std::string label = "label";
};

// The member at `path` (see Fields) of `value`, or nullptr when there is none.
const nlohmann::ordered_json* find_field(const nlohmann::ordered_json& value,
                                         const std::string& path);

struct Record {
  nlohmann::ordered_json value;  // the object, keys in input order
  int64_t position = 0;          // 1-based line (JSON Lines) or 0-based array index
  std::string where;             // "file:line 12" or "file:[3]", for messages
};

class RecordReader {
 public:
  // `path` "-" is stdin. Throws IoError if unreadable. `fields` names the text column a CSV or
  // TSV header must have, and the members a fastText line's label and text become.
  explicit RecordReader(const std::string& path, Fields fields = {});
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Next record; false at the end. Throws InputError for a malformed line or a value that is not
  // an object. Blank lines are skipped.
  bool next(Record& record);
  DataFormat format() const { return format_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::ifstream file_;
  std::istream* in_;
  DataFormat format_ = DataFormat::kJsonLines;
  int64_t line_ = 0;
  nlohmann::ordered_json array_;  // the whole array, for kJsonArray
  size_t array_pos_ = 0;
  std::string buffer_;
  bool pending_ = false;             // buffer_ holds the first line, read to tell the format
  std::vector<std::string> header_;  // CSV and TSV column names
  Fields fields_;

  bool next_line();                     // into buffer_; false at the end
  bool next_table_row(Record& record);  // CSV or TSV
};

// A labelled example for training and evaluation.
struct Example {
  std::string text;
  std::string label;
  std::string pair;  // "" when the record has no pair id
  std::string where;
};

// Reads every record; each must have a non-empty string text and a string label (unless
// `need_label` is false) where `fields` says. Throws InputError naming file and line. An empty
// file is an error.
std::vector<Example> read_examples(const std::string& path, bool need_label = true,
                                   const Fields& fields = {});

// The string field at `path` of a record, or an InputError naming the record and the field.
const std::string& text_field(const Record& record, const std::string& path = "text");

}  // namespace router
