#include "input/headers.h"

#include <cctype>

namespace router {

namespace {

// A header field's first line: a name of printable ASCII other than ':' and space, then ':'.
bool starts_field(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (size_t i = 0; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c <= 32 || c >= 127) return false;
  }
  return true;
}

}  // namespace

bool has_prefix(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

std::string line_ending(std::string_view message) {
  const size_t nl = message.find('\n');
  return nl != std::string_view::npos && nl > 0 && message[nl - 1] == '\r' ? "\r\n" : "\n";
}

std::string stamp_headers(std::string_view message, std::string_view prefix,
                          const std::vector<std::string>& fields) {
  const std::string eol = line_ending(message);
  std::string added;
  for (const auto& f : fields) added += f + eol;

  std::string out;
  out.reserve(message.size() + added.size());
  size_t pos = 0;
  bool dropping = false, any_field = false;
  while (pos < message.size()) {
    size_t end = message.find('\n', pos);
    end = end == std::string_view::npos ? message.size() : end + 1;
    const std::string_view line = message.substr(pos, end - pos);
    const bool continuation = any_field && (line[0] == ' ' || line[0] == '\t');
    if (pos == 0 && line.substr(0, 5) == "From ") {
      out += line;  // the mbox envelope line procmail hands over
    } else if (continuation) {
      if (!dropping) out += line;
    } else if (starts_field(line)) {
      any_field = true;
      dropping = has_prefix(line, prefix);
      if (!dropping) out += line;
    } else {
      break;  // the blank line, or the first line of a body with no blank line before it
    }
    pos = end;
  }
  if (!any_field) return added + eol + std::string(message);
  if (!out.empty() && out.back() != '\n') out += eol;  // a header block that ends the input
  out += added;
  out += message.substr(pos);
  return out;
}

std::string header_value(std::string_view text, size_t max) {
  std::string out;
  for (const char ch : text) {
    if (out.size() >= max) break;
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\r' || c == '\n' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c >= 32 && c < 127 ? ch : '?';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace router
