// Strict UTF-8 reading. Any byte string can be read: each ill-formed sequence (bad lead byte,
// stray continuation byte, truncated sequence, overlong form, surrogate, code point above
// U+10FFFF) becomes one U+FFFD per "maximal subpart", the Unicode/WHATWG recommended practice.
// Nothing here throws or reads past the end of the input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace router {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Reads one code point of `s` starting at byte `pos` (pos < s.size()) and advances `pos` past
// it. An ill-formed sequence yields kReplacementChar and advances past its maximal subpart
// (at least one byte), so a loop over decode_utf8 always terminates.
char32_t decode_utf8(std::string_view s, std::size_t& pos);

// Appends the UTF-8 encoding of `cp`; surrogates and values above U+10FFFF become U+FFFD.
void append_utf8(std::string& out, char32_t cp);

// True when `s` is well-formed UTF-8 (NUL bytes included: they are well-formed).
bool is_valid_utf8(std::string_view s);

// Any bytes -> well-formed UTF-8. Ill-formed sequences become U+FFFD and NUL bytes become
// spaces (NUL is white space to us, and no C API further down can stop at it).
std::string sanitize_utf8(std::string_view bytes);

}  // namespace router
