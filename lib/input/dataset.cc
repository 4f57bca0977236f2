#include "input/dataset.h"

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

RecordReader::RecordReader(const std::string& path) : name_(path == "-" ? "stdin" : path) {
  if (path == "-") {
    in_ = &std::cin;
  } else {
    file_.open(path, std::ios::binary);
    if (!file_) throw IoError("cannot read " + path + ": no such file or not readable");
    in_ = &file_;
  }
  // Peek at the first non-blank byte: '[' is a JSON array, anything else JSON Lines.
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
  }
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
  while (std::getline(*in_, buffer_)) {
    ++line_;
    if (buffer_.find_first_not_of(" \t\r") == std::string::npos) continue;
    record.position = line_;
    record.where = name_ + ":" + std::to_string(line_);
    record.value = parse_value(buffer_, record.where);
    if (!record.value.is_object()) {
      throw InputError(record.where + ": expected a JSON object (one record per line)");
    }
    return true;
  }
  if (in_->bad()) throw IoError(name_ + ": read error");
  return false;
}

const std::string& text_field(const Record& record, const char* key) {
  auto it = record.value.find(key);
  if (it == record.value.end()) {
    throw InputError(record.where + ": missing \"" + key + "\"");
  }
  if (!it->is_string()) throw InputError(record.where + ": \"" + key + "\" is not a string");
  return it->get_ref<const std::string&>();
}

std::vector<Example> read_examples(const std::string& path, bool need_label) {
  RecordReader reader(path);
  std::vector<Example> out;
  Record r;
  while (reader.next(r)) {
    Example e;
    e.text = text_field(r, "text");
    if (e.text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
      throw InputError(r.where + ": \"text\" is empty");
    }
    if (need_label || r.value.contains("label")) e.label = text_field(r, "label");
    if (need_label && e.label.empty()) throw InputError(r.where + ": \"label\" is empty");
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
