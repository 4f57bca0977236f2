// GMime does the MIME work (structure, transfer encodings, header decoding, charset names);
// this file picks the part, converts it to UTF-8, strips HTML and cuts replies and signatures.
//
// GMime and the GLib stack under it (16 shared libraries, all linked with BIND_NOW) are opened
// with dlopen the first time a message is parsed, not at process start: resolving their symbols
// cost about half of the start-up time of every `router` command, and most commands never read
// email. The headers still give every function its exact type.
#include "input/mail.h"

#include <gmime/gmime.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "base/errors.h"
#include "base/shared_library.h"
#include "text/utf8.h"

namespace router {

namespace {

// Every GMime and GLib function this file calls.
#define ROUTER_GMIME_FUNCTIONS(X)             \
  X(g_mime_init)                              \
  X(g_mime_charset_canon_name)                \
  X(g_mime_charset_iconv_name)                \
  X(g_mime_content_type_is_type)              \
  X(g_mime_data_wrapper_write_to_stream)      \
  X(g_mime_message_get_from)                  \
  X(g_mime_message_get_message_id)            \
  X(g_mime_message_get_mime_part)             \
  X(g_mime_message_get_subject)               \
  X(g_mime_multipart_get_count)               \
  X(g_mime_multipart_get_part)                \
  X(g_mime_multipart_get_type)                \
  X(g_mime_object_get_content_type)           \
  X(g_mime_object_get_content_type_parameter) \
  X(g_mime_object_get_header)                 \
  X(g_mime_parser_construct_message)          \
  X(g_mime_parser_new_with_stream)            \
  X(g_mime_part_get_content)                  \
  X(g_mime_part_get_type)                     \
  X(g_mime_part_is_attachment)                \
  X(g_mime_stream_mem_get_byte_array)         \
  X(g_mime_stream_mem_new)                    \
  X(g_mime_stream_mem_new_with_buffer)        \
  X(internet_address_list_to_string)          \
  X(g_type_check_instance_is_a)               \
  X(g_object_unref)                           \
  X(g_convert)                                \
  X(g_error_free)                             \
  X(g_free)                                   \
  X(g_iconv_close)                            \
  X(g_iconv_open)

struct GMimeApi {
#define ROUTER_GMIME_MEMBER(name) decltype(&::name) name = nullptr;
  ROUTER_GMIME_FUNCTIONS(ROUTER_GMIME_MEMBER)
#undef ROUTER_GMIME_MEMBER
};

// GMime, opened and initialised on first use (thread-safe). Should it fail, the IoError goes
// to the caller and the next call tries again.
const GMimeApi& gmime() {
  static const GMimeApi api = [] {
    const std::string need = "reading email needs GMime (Debian package libgmime-3.0-0)";
    GMimeApi a;
#define ROUTER_GMIME_LOOKUP(name) \
  a.name = reinterpret_cast<decltype(a.name)>(library_symbol("libgmime-3.0.so.0", #name, need));
    ROUTER_GMIME_FUNCTIONS(ROUTER_GMIME_LOOKUP)
#undef ROUTER_GMIME_LOOKUP
    a.g_mime_init();
    return a;
  }();
  return api;
}

// The checked casts of GMime's macros (GMIME_IS_PART, ...) name the type functions directly,
// which would link GMime; these go through the table.
bool is_a(const GMimeApi& g, void* object, GType type) {
  return object && g.g_type_check_instance_is_a(static_cast<GTypeInstance*>(object), type);
}

struct GObjectUnref {
  void operator()(void* p) const {
    if (p) gmime().g_object_unref(p);
  }
};
template <typename T>
using GPtr = std::unique_ptr<T, GObjectUnref>;

struct GFreeDeleter {
  void operator()(void* p) const { gmime().g_free(p); }
};
using GString = std::unique_ptr<char, GFreeDeleter>;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view trim(std::string_view s) {
  s = rtrim(s);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Bytes in charset `from` -> UTF-8 as iconv gives it; false if iconv does not know `from` (known
// = false) or the bytes are not valid in it. Throws nothing. Not always valid UTF-8: glibc's iconv
// reads a label such as "utf=8" as UTF-8 and lets 4-byte sequences beyond U+10FFFF through.
bool convert(const std::string& bytes, const char* from, std::string& out, bool& known) {
  const GMimeApi& g = gmime();
  const GIConv cd = g.g_iconv_open("UTF-8", from);
  known = cd != reinterpret_cast<GIConv>(-1);
  if (!known) return false;
  g.g_iconv_close(cd);
  GError* error = nullptr;
  gsize written = 0;
  GString converted(g.g_convert(bytes.data(), static_cast<gssize>(bytes.size()), "UTF-8", from,
                                nullptr, &written, &error));
  if (error) g.g_error_free(error);
  if (!converted) return false;
  out.assign(converted.get(), written);
  return true;
}

// Windows-1252, falling back to ISO-8859-1 for the five bytes Windows-1252 leaves undefined.
std::string from_windows_1252(const std::string& bytes) {
  std::string out;
  bool known = false;
  if (convert(bytes, "WINDOWS-1252", out, known)) return out;
  if (convert(bytes, "ISO-8859-1", out, known)) return out;
  return bytes;
}

// The part's bytes decoded from its charset, not yet sanitized.
std::string decode(const std::string& bytes, const char* charset_param, const std::string& where,
                   const char* part) {
  const GMimeApi& g = gmime();
  const std::string charset = lower(charset_param ? charset_param : "us-ascii");
  const std::string canon = lower(g.g_mime_charset_canon_name(charset.c_str()));
  if (canon == "utf-8" || canon == "utf8") return bytes;
  if (canon == "us-ascii" || canon == "ascii" || canon == "ansi_x3.4-1968") {
    // 8-bit bytes under an ASCII label: UTF-8 if they are, else the usual Windows mail charset.
    return is_valid_utf8(bytes) ? bytes : from_windows_1252(bytes);
  }
  if (canon == "iso-8859-1" || canon == "latin1" || canon == "windows-1252" || canon == "cp1252") {
    return from_windows_1252(bytes);
  }
  std::string out;
  bool known = false;
  if (convert(bytes, g.g_mime_charset_iconv_name(charset.c_str()), out, known)) return out;
  if (!known && is_valid_utf8(bytes)) return bytes;  // a made-up label on ASCII/UTF-8 text
  throw InputError(where + ": cannot decode the " + part +
                   " part: " + (known ? "bytes that are not valid " : "unknown charset ") + "\"" +
                   (charset_param ? charset_param : "") + "\"");
}

// Every path through one sanitizer: valid UTF-8 (U+FFFD for ill-formed bytes), NUL as a space.
std::string to_utf8(const std::string& bytes, const char* charset_param, const std::string& where,
                    const char* part) {
  return sanitize_utf8(decode(bytes, charset_param, where, part));
}

// ---- HTML to text ------------------------------------------------------------------------

// The code point of a named entity ("amp" -> '&'), for the names mail actually uses.
std::optional<char32_t> named_entity(std::string_view name) {
  static const std::array<std::pair<std::string_view, char32_t>, 17> kNamed = {{
      {"amp", '&'},
      {"lt", '<'},
      {"gt", '>'},
      {"quot", '"'},
      {"apos", '\''},
      {"nbsp", ' '},
      {"ndash", 0x2013},
      {"mdash", 0x2014},
      {"hellip", 0x2026},
      {"lsquo", 0x2018},
      {"rsquo", 0x2019},
      {"ldquo", 0x201C},
      {"rdquo", 0x201D},
      {"copy", 0xA9},
      {"reg", 0xAE},
      {"euro", 0x20AC},
      {"bull", 0x2022},
  }};
  for (const auto& [n, cp] : kNamed) {
    if (n == name) return cp;
  }
  return std::nullopt;
}

// The code point of a numeric entity's name ("#233", "#xE9"); none if a digit is bad.
std::optional<char32_t> numeric_entity(std::string_view name) {
  const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
  const std::string_view digits = name.substr(hex ? 2 : 1);
  if (digits.empty()) return std::nullopt;
  uint32_t cp = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (hex && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    // Stop before the value can overflow; append_utf8 replaces what is past U+10FFFF.
    if (d < 0 || cp > 0x10FFFF) return std::nullopt;
    cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
  }
  // &#0; is no character; &#160; (no-break space) is read as a space.
  return cp == 0 ? kReplacementChar : cp == 0xA0 ? U' ' : char32_t{cp};
}

// Decodes the entity at s[i] == '&' into `out`; returns the index after it (i + 1 if unknown).
size_t decode_entity(std::string_view s, size_t i, std::string& out) {
  const size_t semi = s.find(';', i + 1);
  if (semi == std::string_view::npos || semi - i > 12) {
    out += '&';
    return i + 1;
  }
  const std::string_view name = s.substr(i + 1, semi - i - 1);
  const std::optional<char32_t> cp =
      !name.empty() && name[0] == '#' ? numeric_entity(name) : named_entity(name);
  if (!cp) {
    out += '&';
    return i + 1;
  }
  append_utf8(out, *cp);
  return semi + 1;
}

// Tags that end a line of text.
bool is_block(std::string_view tag) {
  static const std::array<std::string_view, 19> kBlocks = {
      "br", "p",  "div", "tr", "li", "ul",         "ol",  "table",   "h1",   "h2",
      "h3", "h4", "h5",  "h6", "hr", "blockquote", "pre", "section", "title"};
  return std::find(kBlocks.begin(), kBlocks.end(), tag) != kBlocks.end();
}

// The first `needle` (lower case) in `s` at or after `from`, ignoring ASCII case. Searches in
// place: copying the rest of the document for each tag would make many tags quadratic.
size_t find_ci(std::string_view s, std::string_view needle, size_t from) {
  const auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
  };
  const auto it = std::search(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(),
                              needle.begin(), needle.end(), eq);
  return it == s.end() ? std::string_view::npos : static_cast<size_t>(it - s.begin());
}

// Text of an HTML document: tags dropped, block tags as line breaks, white space runs collapsed,
// entities decoded; <script>, <style> and <head> left out, and a <blockquote> (a quoted reply)
// left out but for a line ">", so that clean_body sees a marked quote as in plain text.
std::string html_to_text(std::string_view html) {
  std::string out;
  int quote_depth = 0;
  bool space = false;
  size_t i = 0;
  while (i < html.size()) {
    const char c = html[i];
    if (c == '<') {
      if (html.substr(i, 4) == "<!--") {
        const size_t end = html.find("-->", i + 4);
        i = end == std::string_view::npos ? html.size() : end + 3;
        continue;
      }
      const size_t close = html.find('>', i + 1);
      if (close == std::string_view::npos) break;  // a cut-off tag: the text has ended
      std::string_view inside = html.substr(i + 1, close - i - 1);
      const bool closing = !inside.empty() && inside[0] == '/';
      if (closing) inside.remove_prefix(1);
      size_t n = 0;
      while (n < inside.size() && (std::isalnum(static_cast<unsigned char>(inside[n])))) ++n;
      const std::string tag = lower(inside.substr(0, n));
      i = close + 1;
      if (!closing && (tag == "script" || tag == "style" || tag == "head")) {
        const size_t end = find_ci(html, "</" + tag, i);
        if (end == std::string_view::npos) break;
        const size_t gt = html.find('>', end);
        i = gt == std::string_view::npos ? html.size() : gt + 1;
        continue;
      }
      if (tag == "blockquote") {
        if (!closing && quote_depth == 0) {
          out += "\n>\n";
          space = false;
        }
        quote_depth = std::max(0, quote_depth + (closing ? -1 : 1));
      }
      if (is_block(tag) && quote_depth == 0) {
        out += '\n';
        space = false;
      }
      continue;
    }
    if (quote_depth > 0) {
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      space = true;
      ++i;
      continue;
    }
    if (space && !out.empty() && out.back() != '\n') out += ' ';
    space = false;
    if (c == '&') {
      i = decode_entity(html, i, out);
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// ---- Quotes and signatures ----------------------------------------------------------------

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "On <date>, <name> wrote:" at lines[i], possibly wrapped onto a second line by the mail
// client: the number of lines it takes, 0 if it is not one.
size_t attribution_lines(const std::vector<std::string_view>& lines, size_t i) {
  const std::string_view t = trim(lines[i]);
  if (!starts_with(t, "On ") || t.size() >= 400) return 0;
  if (ends_with(t, "wrote:")) return 1;
  const bool wrapped = i + 1 < lines.size() && ends_with(trim(lines[i + 1]), "wrote:") &&
                       !starts_with(lines[i + 1], ">");
  return wrapped ? 2 : 0;
}

// The body without quoted lines, the "On ... wrote:" lines above them, a quoted reply not marked
// with '>' and the signature; lines right-trimmed, runs of blank lines collapsed to one, no blank
// lines at either end.
std::string clean_body(std::string_view body) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  std::string out;
  bool blank = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line == "-- ") break;  // the signature separator (RFC 3676)
    const std::string_view t = trim(line);
    if (t == "-----Original Message-----") break;
    if (const size_t n = attribution_lines(lines, i)) {
      // The writer may answer below or between the lines of a quote marked with '>'
      // (bottom-posting, answers inline), so only these lines go; an unmarked quote is the rest.
      size_t next = i + n;
      while (next < lines.size() && trim(lines[next]).empty()) ++next;
      if (next == lines.size() || !starts_with(lines[next], ">")) break;
      i = next - 1;
      continue;
    }
    if (starts_with(line, ">")) continue;
    if (t.empty()) {
      blank = !out.empty();
      continue;
    }
    if (blank) out += '\n';
    blank = false;
    out += rtrim(line);
    out += '\n';
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// ---- MIME --------------------------------------------------------------------------------

// The first non-attachment text/<subtype> part, depth first; forwarded messages are not entered.
GMimePart* find_text_part(GMimeObject* object, const char* subtype) {
  const GMimeApi& g = gmime();
  if (is_a(g, object, g.g_mime_multipart_get_type())) {
    GMimeMultipart* multipart = reinterpret_cast<GMimeMultipart*>(object);
    const int n = g.g_mime_multipart_get_count(multipart);
    for (int i = 0; i < n; ++i) {
      if (GMimePart* p = find_text_part(g.g_mime_multipart_get_part(multipart, i), subtype)) {
        return p;
      }
    }
    return nullptr;
  }
  if (!is_a(g, object, g.g_mime_part_get_type())) return nullptr;
  GMimePart* part = reinterpret_cast<GMimePart*>(object);
  GMimeContentType* type = g.g_mime_object_get_content_type(object);
  if (!type || !g.g_mime_content_type_is_type(type, "text", subtype)) return nullptr;
  if (g.g_mime_part_is_attachment(part)) return nullptr;
  return part;
}

// The charset parameter of the part's Content-Type, or null.
const char* charset_of(GMimePart* part) {
  return gmime().g_mime_object_get_content_type_parameter(reinterpret_cast<GMimeObject*>(part),
                                                          "charset");
}

std::string part_bytes(GMimePart* part) {
  const GMimeApi& g = gmime();
  GMimeDataWrapper* content = g.g_mime_part_get_content(part);
  if (!content) return "";
  GPtr<GMimeStream> mem(g.g_mime_stream_mem_new());
  // Undoes the Content-Transfer-Encoding (base64, quoted-printable, ...).
  if (g.g_mime_data_wrapper_write_to_stream(content, mem.get()) < 0) return "";
  GByteArray* bytes =
      g.g_mime_stream_mem_get_byte_array(reinterpret_cast<GMimeStreamMem*>(mem.get()));
  return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

std::string one_line(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : trim(s)) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

bool header_name_char(char c) { return c > 32 && c < 127 && c != ':'; }

// RFC 3834 and mailing-list headers: the first that marks the message as automatic or bulk mail,
// as "Name: value" (or the name alone for list headers), else "".
std::string automatic_mail_rule(const GMimeApi& g, GMimeObject* object) {
  auto value = [&](const char* name) -> std::string {
    const char* v = g.g_mime_object_get_header(object, name);
    return v ? lower(one_line(sanitize_utf8(v))) : std::string();
  };
  std::string kind = value("Auto-Submitted");  // "auto-replied; ..." : the keyword decides
  kind = one_line(kind.substr(0, kind.find(';')));
  if (!kind.empty() && kind != "no") return "Auto-Submitted: " + kind;
  const std::string precedence = value("Precedence");
  for (const char* bulk : {"bulk", "list", "junk"}) {
    if (precedence == bulk) return "Precedence: " + precedence;
  }
  for (const char* list : {"List-Id", "List-Unsubscribe"}) {
    if (g.g_mime_object_get_header(object, list)) return list;
  }
  return "";
}

}  // namespace

bool looks_like_message(std::string_view s) {
  static const std::array<std::string_view, 9> kKnown = {
      "from",     "subject",     "message-id", "date",        "mime-version",
      "received", "return-path", "to",         "content-type"};
  bool known = false, any = false;
  size_t pos = 0;
  int n = 0;
  while (pos < s.size() && n < 500) {
    size_t end = s.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = s.size();
    std::string_view line = s.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return any && known;  // the blank line ending the header block
    if (n == 0 && starts_with(line, "From ")) {
      // an mbox separator before the headers
    } else if (line[0] == ' ' || line[0] == '\t') {
      if (!any) return false;  // a continuation with nothing to continue
    } else {
      size_t k = 0;
      while (k < line.size() && header_name_char(line[k])) ++k;
      if (k == 0 || k >= line.size() || line[k] != ':') return false;
      any = true;
      known = known ||
              std::find(kKnown.begin(), kKnown.end(), lower(line.substr(0, k))) != kKnown.end();
    }
    if (last) return false;  // the header block never ended (or the start was too short)
    pos = end + 1;
    ++n;
  }
  return false;
}

bool looks_like_mbox(std::string_view start) { return starts_with(start, "From "); }

bool file_is_mbox(const std::string& path) {
  if (path == "-") return std::cin.peek() == 'F';  // JSON and message headers never start so
  std::ifstream in(path, std::ios::binary);
  char start[5] = {};
  in.read(start, sizeof start);
  return looks_like_mbox(std::string_view(start, static_cast<size_t>(in.gcount())));
}

MailText parse_message(std::string_view raw, const std::string& where) {
  if (!looks_like_message(raw)) {
    throw InputError(where +
                     ": not an email: no RFC 5322 header block (\"From:\", "
                     "\"Subject:\", ... up to a blank line)");
  }
  if (starts_with(raw, "From ")) {  // an mbox separator line: not a header
    const size_t nl = raw.find('\n');
    raw.remove_prefix(nl == std::string_view::npos ? raw.size() : nl + 1);
  }
  const GMimeApi& g = gmime();
  // The stream copies the bytes, so `raw` need not outlive it.
  GPtr<GMimeStream> stream(g.g_mime_stream_mem_new_with_buffer(raw.data(), raw.size()));
  GPtr<GMimeParser> parser(g.g_mime_parser_new_with_stream(stream.get()));
  GPtr<GMimeMessage> message(g.g_mime_parser_construct_message(parser.get(), nullptr));
  if (!message) throw InputError(where + ": broken MIME: GMime cannot parse the message");
  GMimeObject* object = reinterpret_cast<GMimeObject*>(message.get());

  MailText mail;
  // Header values are raw bytes when they are not RFC 2047 encoded: any of them may be invalid
  // UTF-8, and every one is written into JSON by `batch`.
  if (const char* id = g.g_mime_message_get_message_id(message.get())) {
    mail.message_id = sanitize_utf8(id);
  }
  if (InternetAddressList* from = g.g_mime_message_get_from(message.get())) {
    GString s(g.internet_address_list_to_string(from, nullptr, FALSE));
    if (s) mail.from = sanitize_utf8(s.get());
  }
  if (const char* date = g.g_mime_object_get_header(object, "Date")) {
    mail.date = one_line(sanitize_utf8(date));
  }
  if (const char* subject = g.g_mime_message_get_subject(message.get())) {
    mail.subject = one_line(sanitize_utf8(subject));
  }

  mail.rule = automatic_mail_rule(g, object);

  GMimeObject* body = g.g_mime_message_get_mime_part(message.get());
  std::string text;
  if (GMimePart* plain = body ? find_text_part(body, "plain") : nullptr) {
    text = to_utf8(part_bytes(plain), charset_of(plain), where, "text/plain");
  } else if (GMimePart* html = body ? find_text_part(body, "html") : nullptr) {
    text = html_to_text(to_utf8(part_bytes(html), charset_of(html), where, "text/html"));
  }
  text = clean_body(text);
  if (!mail.subject.empty()) text = text.empty() ? mail.subject : mail.subject + "\n\n" + text;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    text.clear();
    if (mail.rule.empty()) mail.rule = "no text";
  }
  mail.text = std::move(text);
  return mail;
}

MboxReader::MboxReader(const std::string& path) : name_(path == "-" ? "stdin" : path) {
  if (path == "-") {
    in_ = &std::cin;
  } else {
    file_.open(path, std::ios::binary);
    if (!file_) throw IoError("cannot read " + path);
    in_ = &file_;
  }
}

std::string MboxReader::where() const {
  return name_ + ": message " + std::to_string(messages_) + " (line " +
         std::to_string(message_line_) + ")";
}

bool MboxReader::next(std::string& raw, int64_t& line) {
  raw.clear();
  std::string text;
  if (!started_) {
    started_ = true;
    while (std::getline(*in_, text)) {
      ++line_;
      if (trim(text).empty()) continue;
      if (!looks_like_mbox(text)) {
        throw InputError(name_ + ":" + std::to_string(line_) +
                         ": not an mbox: the first line does not start with \"From \"");
      }
      pending_ = text;
      pending_line_ = line_;
      break;
    }
  }
  if (pending_.empty()) {
    if (in_->bad()) throw IoError("cannot read " + name_);
    return false;
  }
  line = message_line_ = pending_line_;
  ++messages_;
  pending_.clear();
  while (std::getline(*in_, text)) {
    ++line_;
    if (looks_like_mbox(text)) {
      pending_ = text;
      pending_line_ = line_;
      break;
    }
    // mboxrd: ">From ", ">>From ", ... lose one '>'.
    size_t k = 0;
    while (k < text.size() && text[k] == '>') ++k;
    if (k > 0 && text.compare(k, 5, "From ") == 0) text.erase(0, 1);
    raw += text;
    raw += '\n';
  }
  if (in_->bad()) throw IoError("cannot read " + name_);
  // The blank line(s) the writer put before the next separator are not part of the message.
  while (!raw.empty() && (raw.back() == '\n' || raw.back() == '\r')) raw.pop_back();
  raw += '\n';
  return true;
}

}  // namespace router
