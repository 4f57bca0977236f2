#include "input/dataset.h"

#include <algorithm>
#include <iostream>

#include "base/errors.h"

namespace router {

using ojson = nlohmann::ordered_json;

namespace {

constexpr int kMaxDepth = 64;

// nlohmann's message in the user's terms: "[json.exception.parse_error.101] parse error at line
// 1, column 41: syntax error while parsing object - unexpected end of input; expected '}'"
// becomes "column 41: unexpected end of input; expected '}'".
std::string json_error_text(const std::string& what) {
  std::string s = what;
  if (s.rfind("[json.exception.", 0) == 0 && s.find("] ") != std::string::npos) {
    s = s.substr(s.find("] ") + 2);
  }
  std::string column;
  if (const size_t c = s.find("column "); c != std::string::npos) {
    const size_t end = s.find(':', c);
    column = s.substr(c, end == std::string::npos ? std::string::npos : end - c);
    s = end == std::string::npos ? "" : s.substr(end + 1);
  }
  if (const size_t dash = s.find(" - "); dash != std::string::npos) s = s.substr(dash + 3);
  if (const size_t last = s.find("; last read"); last != std::string::npos) s.resize(last);
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  return column.empty() ? s : column + ": " + s;
}

// One CSV row (RFC 4180: fields in double quotes may hold separators, line breaks and "" for a
// quote) or TSV row (split on tabs, nothing quoted).
std::vector<std::string> split_row(const std::string& row, char sep) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (sep == ',' && c == '"') {
      if (quoted && i + 1 < row.size() && row[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == sep && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// "__label__refund __label__x some words" -> {"label": "refund", "text": "some words"} (members
// named as `fields` says): the first label is the record's; fastText's further labels are dropped.
bool fasttext_record(const std::string& line, const Fields& fields, Record& record) {
  std::string label;
  size_t pos = 0;
  while (true) {
    const size_t start = line.find_first_not_of(" \t", pos);
    if (start == std::string::npos || line.compare(start, 9, "__label__") != 0) {
      pos = start == std::string::npos ? line.size() : start;
      break;
    }
    size_t end = line.find_first_of(" \t", start);
    if (end == std::string::npos) end = line.size();
    if (label.empty()) label = line.substr(start + 9, end - start - 9);
    pos = end;
  }
  record.value = nlohmann::ordered_json{{fields.label, label}, {fields.text, line.substr(pos)}};
  return true;
}

// Parse one value, refusing hostile nesting (the parser would otherwise recurse without bound).
ojson parse_value(const std::string& text, const std::string& where) {
  auto guard = [&](int depth, ojson::parse_event_t, ojson&) {
    if (depth > kMaxDepth) {
      throw InputError(where + ": JSON nested deeper than " + std::to_string(kMaxDepth) +
                       " levels");
    }
    return true;
  };
  try {
    return ojson::parse(text, guard);
  } catch (const ojson::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    throw InputError(where + ": malformed JSON (" + json_error_text(e.what()) +
                     "); each line should be one JSON object such as {\"text\": \"...\"}");
  }
}

}  // namespace

RecordReader::RecordReader(const std::string& path, Fields fields)
    : name_(path == "-" ? "stdin" : path), fields_(std::move(fields)) {
  if (path == "-") {
    in_ = &std::cin;
  } else {
    file_.open(path, std::ios::binary);
    if (!file_) throw IoError("cannot read " + path + ": no such file or not readable");
    in_ = &file_;
  }
  // Peek at the first non-blank byte: '[' is a JSON array; otherwise the first line tells.
  int c;
  while ((c = in_->peek()) != EOF && (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
    if (c == '\n') ++line_;
    in_->get();
  }
  if (c == '[') {
    format_ = DataFormat::kJsonArray;
    std::string all((std::istreambuf_iterator<char>(*in_)), std::istreambuf_iterator<char>());
    array_ = parse_value(all, name_);
    if (!array_.is_array()) throw InputError(name_ + ": expected a JSON array of objects");
    return;
  }
  if (c == '{' || c == EOF || !next_line()) return;  // JSON Lines (or nothing at all)
  pending_ = true;
  if (buffer_.rfind("__label__", 0) == 0) {
    format_ = DataFormat::kFastText;
    return;
  }
  const bool tab = buffer_.find('\t') != std::string::npos;
  const std::vector<std::string> columns = split_row(buffer_, tab ? '\t' : ',');
  if (std::find(columns.begin(), columns.end(), fields_.text) == columns.end()) {
    if (columns.size() < 2) return;  // not a table: JSON Lines, whose parser names the problem
    std::string names;
    for (const auto& col : columns) names += (names.empty() ? "" : ", ") + col;
    throw InputError(name_ + ":" + std::to_string(line_) + ": read as " + (tab ? "TSV" : "CSV") +
                     ", but the header row names no \"" + fields_.text + "\" column (it has: " +
                     names + ")" + (fields_.text == "text" ? "; --text-field names another" : ""));
  }
  format_ = tab ? DataFormat::kTsv : DataFormat::kCsv;
  header_ = columns;
  pending_ = false;  // the header is not a record
}

bool RecordReader::next_line() {
  if (pending_) {
    pending_ = false;
    return true;
  }
  if (!std::getline(*in_, buffer_)) {
    if (in_->bad()) throw IoError(name_ + ": read error");
    return false;
  }
  ++line_;
  if (!buffer_.empty() && buffer_.back() == '\r') buffer_.pop_back();
  return true;
}

bool RecordReader::next_table_row(Record& record) {
  const char sep = format_ == DataFormat::kTsv ? '\t' : ',';
  do {
    if (!next_line()) return false;
  } while (buffer_.find_first_not_of(" \t") == std::string::npos);
  record.position = line_;
  record.where = name_ + ":" + std::to_string(line_);
  std::string row = buffer_;
  // A quoted CSV field may hold line breaks: read on while a quote is open.
  while (sep == ',' && std::count(row.begin(), row.end(), '"') % 2 == 1) {
    if (!next_line()) throw InputError(record.where + ": a quoted field is never closed");
    row += "\n" + buffer_;
  }
  const std::vector<std::string> fields = split_row(row, sep);
  if (fields.size() != header_.size()) {
    throw InputError(record.where + ": " + std::to_string(fields.size()) + " fields, but the " +
                     "header names " + std::to_string(header_.size()) + " columns");
  }
  record.value = nlohmann::ordered_json::object();
  for (size_t i = 0; i < fields.size(); ++i) record.value[header_[i]] = fields[i];
  return true;
}

RecordReader::~RecordReader() = default;

bool RecordReader::next(Record& record) {
  if (format_ == DataFormat::kJsonArray) {
    if (array_pos_ >= array_.size()) return false;
    record.position = static_cast<int64_t>(array_pos_);
    record.where = name_ + ":[" + std::to_string(array_pos_) + "]";
    record.value = std::move(array_[array_pos_++]);
    if (!record.value.is_object()) throw InputError(record.where + ": expected a JSON object");
    return true;
  }
  if (format_ == DataFormat::kCsv || format_ == DataFormat::kTsv) return next_table_row(record);
  while (next_line()) {
    if (buffer_.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (format_ == DataFormat::kFastText) {
      record.position = line_;
      record.where = name_ + ":" + std::to_string(line_);
      return fasttext_record(buffer_, fields_, record);
    }
    record.position = line_;
    record.where = name_ + ":" + std::to_string(line_);
    record.value = parse_value(buffer_, record.where);
    if (!record.value.is_object()) {
      throw InputError(record.where + ": expected a JSON object (one record per line)");
    }
    return true;
  }
  return false;
}

const nlohmann::ordered_json* find_field(const nlohmann::ordered_json& value,
                                         const std::string& path) {
  if (!value.is_object()) return nullptr;
  if (auto it = value.find(path); it != value.end()) return &*it;
  const nlohmann::ordered_json* at = &value;
  for (size_t begin = 0; begin <= path.size();) {
    const size_t dot = std::min(path.find('.', begin), path.size());
    if (!at->is_object()) return nullptr;
    auto it = at->find(path.substr(begin, dot - begin));
    if (it == at->end()) return nullptr;
    at = &*it;
    begin = dot + 1;
  }
  return at;
}

const std::string& text_field(const Record& record, const std::string& path) {
  const nlohmann::ordered_json* v = find_field(record.value, path);
  if (v == nullptr) {
    std::string names;
    for (const auto& [key, value] : record.value.items())
      names += (names.empty() ? "" : ", ") + key;
    throw InputError(record.where + ": missing \"" + path + "\"" +
                     (names.empty() ? "" : " (the record has: " + names + ")"));
  }
  if (!v->is_string()) throw InputError(record.where + ": \"" + path + "\" is not a string");
  return v->get_ref<const std::string&>();
}

std::vector<Example> read_examples(const std::string& path, bool need_label, const Fields& fields) {
  RecordReader reader(path, fields);
  std::vector<Example> out;
  Record r;
  while (reader.next(r)) {
    Example e;
    e.text = text_field(r, fields.text);
    if (e.text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
      throw InputError(r.where + ": \"" + fields.text + "\" is empty");
    }
    if (need_label || find_field(r.value, fields.label)) e.label = text_field(r, fields.label);
    if (need_label && e.label.empty()) {
      throw InputError(r.where + ": \"" + fields.label + "\" is empty");
    }
    auto pair = r.value.find("pair");
    if (pair != r.value.end() && !pair->is_null()) {
      e.pair = pair->is_string() ? pair->get<std::string>() : pair->dump();
    }
    e.where = r.where;
    out.push_back(std::move(e));
  }
  if (out.empty()) throw InputError(reader.name() + ": no records (the file is empty)");
  return out;
}

}  // namespace router
