// Strict UTF-8 decoding by the table of well-formed byte sequences (Unicode 15, table 3-7):
// the second byte's range depends on the lead byte, which rules out overlongs (E0, F0),
// surrogates (ED) and values above U+10FFFF (F4) without decoding first.
#include "text/utf8.h"

#include <cstdint>

namespace router {
namespace {

bool in_range(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }

}  // namespace

char32_t decode_utf8(std::string_view s, std::size_t& pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  // Length and the allowed range of the second byte for each valid lead byte.
  int len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (in_range(b0, 0xC2, 0xDF)) {
    len = 2;
  } else if (b0 == 0xE0) {
    len = 3, lo = 0xA0;  // no overlong 3-byte forms
  } else if (in_range(b0, 0xE1, 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    len = 3;
  } else if (b0 == 0xED) {
    len = 3, hi = 0x9F;  // no surrogates U+D800..U+DFFF
  } else if (b0 == 0xF0) {
    len = 4, lo = 0x90;  // no overlong 4-byte forms
  } else if (in_range(b0, 0xF1, 0xF3)) {
    len = 4;
  } else if (b0 == 0xF4) {
    len = 4, hi = 0x8F;  // nothing above U+10FFFF
  } else {
    // C0, C1, F5..FF can never start a sequence; 80..BF is a stray continuation byte.
    ++pos;
    return kReplacementChar;
  }
  char32_t cp = b0 & (0xFF >> (len + 1));
  std::size_t i = pos + 1;
  for (int k = 1; k < len; ++k, ++i) {
    if (i >= s.size()) {  // truncated at the end of the input
      pos = i;
      return kReplacementChar;
    }
    const auto b = static_cast<unsigned char>(s[i]);
    const bool ok = (k == 1) ? in_range(b, lo, hi) : in_range(b, 0x80, 0xBF);
    if (!ok) {  // the maximal subpart ends before the offending byte, which is read again
      pos = i;
      return kReplacementChar;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  pos = i;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = kReplacementChar;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_valid_utf8(std::string_view s) {
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t start = pos;
    const char32_t cp = decode_utf8(s, pos);
    // A genuine U+FFFD is EF BF BD; a substituted one is never three bytes starting with EF.
    const bool genuine = pos - start == 3 && static_cast<unsigned char>(s[start]) == 0xEF;
    if (cp == kReplacementChar && !genuine) return false;
  }
  return true;
}

std::string sanitize_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const auto b = static_cast<unsigned char>(bytes[pos]);
    if (b != 0 && b < 0x80) {  // fast path: plain ASCII
      out.push_back(static_cast<char>(b));
      ++pos;
      continue;
    }
    const std::size_t start = pos;
    const char32_t cp = decode_utf8(bytes, pos);
    if (cp == 0) {
      out.push_back(' ');
    } else if (cp == kReplacementChar) {
      append_utf8(out, cp);
    } else {
      out.append(bytes.substr(start, pos - start));  // well-formed: copy the bytes as they are
    }
  }
  return out;
}

}  // namespace router
