// Pre-tokenisation by a small character-class table. Anything above U+007F that the table does
// not list is a letter: unknown scripts then form words, which the subword model can still
// split, instead of falling apart into one token per character.
#include "text/pretokenize.h"

#include <algorithm>
#include <array>

#include "text/normalize.h"
#include "text/utf8.h"

namespace router {
namespace {

struct Range {
  char32_t lo, hi;
  CharClass cls;
};

constexpr CharClass P = CharClass::kPunct, S = CharClass::kSymbol, M = CharClass::kMark,
                    D = CharClass::kDigit, J = CharClass::kJoiner, R = CharClass::kRegional,
                    E = CharClass::kModifier;

// Sorted, non-overlapping; everything not listed (above ASCII) is a letter.
// clang-format off
constexpr Range kRanges[] = {
    {0x00A1, 0x00A1, P},    {0x00A2, 0x00A6, S},    {0x00A7, 0x00A7, P},    {0x00A8, 0x00A9, S},
    {0x00AB, 0x00AB, P},    {0x00AC, 0x00AC, S},    {0x00AD, 0x00AD, J},    {0x00AE, 0x00B4, S},
    {0x00B6, 0x00B7, P},    {0x00B8, 0x00B9, S},    {0x00BB, 0x00BB, P},    {0x00BC, 0x00BE, S},
    {0x00BF, 0x00BF, P},    {0x00D7, 0x00D7, S},    {0x00F7, 0x00F7, S},    {0x0300, 0x036F, M},
    {0x037E, 0x037E, P},    {0x0387, 0x0387, P},    {0x0482, 0x0482, S},    {0x0483, 0x0489, M},
    {0x055A, 0x055F, P},    {0x0589, 0x058A, P},    {0x058D, 0x058F, S},    {0x0591, 0x05BD, M},
    {0x05BE, 0x05BE, P},    {0x05BF, 0x05BF, M},    {0x05C0, 0x05C0, P},    {0x05C1, 0x05C2, M},
    {0x05C3, 0x05C3, P},    {0x05C4, 0x05C5, M},    {0x05C6, 0x05C6, P},    {0x05C7, 0x05C7, M},
    {0x05F3, 0x05F4, P},    {0x0600, 0x0605, J},    {0x0606, 0x060F, P},    {0x0610, 0x061A, M},
    {0x061B, 0x061B, P},    {0x061C, 0x061C, J},    {0x061D, 0x061F, P},    {0x064B, 0x065F, M},
    {0x0660, 0x0669, D},    {0x066A, 0x066D, P},    {0x0670, 0x0670, M},    {0x06D4, 0x06D4, P},
    {0x06D6, 0x06DC, M},    {0x06DD, 0x06DD, J},    {0x06DE, 0x06DE, S},    {0x06DF, 0x06E4, M},
    {0x06E7, 0x06E8, M},    {0x06E9, 0x06E9, S},    {0x06EA, 0x06ED, M},    {0x06F0, 0x06F9, D},
    {0x06FD, 0x06FE, S},    {0x0700, 0x070D, P},    {0x070F, 0x070F, J},    {0x0711, 0x0711, M},
    {0x0730, 0x074A, M},    {0x07C0, 0x07C9, D},    {0x0964, 0x0965, P},    {0x0966, 0x096F, D},
    {0x0970, 0x0970, P},    {0x09E6, 0x09EF, D},    {0x09F2, 0x09F3, S},    {0x09FA, 0x09FB, S},
    {0x09FD, 0x09FD, P},    {0x0A66, 0x0A6F, D},    {0x0A76, 0x0A76, P},    {0x0AE6, 0x0AEF, D},
    {0x0AF0, 0x0AF0, P},    {0x0AF1, 0x0AF1, S},    {0x0B66, 0x0B6F, D},    {0x0B70, 0x0B70, S},
    {0x0BE6, 0x0BEF, D},    {0x0BF3, 0x0BFA, S},    {0x0C66, 0x0C6F, D},    {0x0C77, 0x0C77, P},
    {0x0C7F, 0x0C7F, S},    {0x0C84, 0x0C84, P},    {0x0CE6, 0x0CEF, D},    {0x0D4F, 0x0D4F, S},
    {0x0D66, 0x0D6F, D},    {0x0D79, 0x0D79, S},    {0x0DE6, 0x0DEF, D},    {0x0DF4, 0x0DF4, P},
    {0x0E3F, 0x0E3F, S},    {0x0E4F, 0x0E4F, P},    {0x0E50, 0x0E59, D},    {0x0E5A, 0x0E5B, P},
    {0x0ED0, 0x0ED9, D},    {0x0F01, 0x0F17, P},    {0x0F20, 0x0F29, D},    {0x1040, 0x1049, D},
    {0x104A, 0x104F, P},    {0x10FB, 0x10FB, P},    {0x1360, 0x1368, P},    {0x166E, 0x166E, P},
    {0x17D4, 0x17D6, P},    {0x17D8, 0x17DA, P},    {0x17DB, 0x17DB, S},    {0x17E0, 0x17E9, D},
    {0x1800, 0x180A, P},    {0x180B, 0x180D, M},    {0x180E, 0x180E, J},    {0x180F, 0x180F, M},
    {0x1810, 0x1819, D},    {0x1AB0, 0x1AFF, M},    {0x1DC0, 0x1DFF, M},    {0x200B, 0x200F, J},
    {0x2010, 0x2027, P},    {0x202A, 0x202E, J},    {0x2030, 0x205E, P},    {0x2060, 0x206F, J},
    {0x2070, 0x20CF, S},    {0x20D0, 0x20FF, M},    {0x2100, 0x2BFF, S},    {0x2DE0, 0x2DFF, M},
    {0x2E00, 0x2E7F, P},    {0x3001, 0x3003, P},    {0x3004, 0x3004, S},    {0x3008, 0x3011, P},
    {0x3012, 0x3013, S},    {0x3014, 0x301F, P},    {0x3020, 0x3020, S},    {0x302A, 0x302F, M},
    {0x3030, 0x3030, P},    {0x3036, 0x3037, S},    {0x303D, 0x303D, P},    {0x303E, 0x303F, S},
    {0x3099, 0x309A, M},    {0x30A0, 0x30A0, P},    {0x30FB, 0x30FB, P},    {0x3200, 0x33FF, S},
    {0x4DC0, 0x4DFF, S},    {0xD800, 0xF8FF, S},    {0xFD3E, 0xFD3F, P},    {0xFDFC, 0xFDFD, S},
    {0xFE00, 0xFE0F, M},    {0xFE10, 0xFE19, P},    {0xFE20, 0xFE2F, M},    {0xFE30, 0xFE6F, P},
    {0xFEFF, 0xFEFF, J},    {0xFF01, 0xFF0F, P},    {0xFF10, 0xFF19, D},    {0xFF1A, 0xFF20, P},
    {0xFF3B, 0xFF40, P},    {0xFF5B, 0xFF65, P},    {0xFFE0, 0xFFEF, S},    {0xFFF9, 0xFFFB, J},
    {0xFFFC, 0xFFFF, S},    {0x1D000, 0x1D24F, S},  {0x1D300, 0x1D37F, S},  {0x1F000, 0x1F1E5, S},
    {0x1F1E6, 0x1F1FF, R},  {0x1F200, 0x1F3FA, S},  {0x1F3FB, 0x1F3FF, E},  {0x1F400, 0x1FBFF, S},
    {0xE0000, 0xE001F, J},  {0xE0020, 0xE007F, M},  {0xE0080, 0xE00FF, J},  {0xE0100, 0xE01EF, M},
    {0xF0000, 0x10FFFF, S},
};
// clang-format on

constexpr bool ranges_sorted() {
  for (std::size_t i = 1; i < std::size(kRanges); ++i) {
    if (kRanges[i].lo <= kRanges[i - 1].hi || kRanges[i].lo > kRanges[i].hi) return false;
  }
  return true;
}
static_assert(ranges_sorted(), "kRanges must be sorted and non-overlapping");

CharClass classify_ascii(char32_t c) {
  if (c <= 0x20 || c == 0x7F) return CharClass::kSpace;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return CharClass::kLetter;
  if (c >= '0' && c <= '9') return CharClass::kDigit;
  switch (c) {  // Unicode puts these ASCII signs in S*, the rest in P*
    case '$':
    case '+':
    case '<':
    case '=':
    case '>':
    case '^':
    case '`':
    case '|':
    case '~':
      return CharClass::kSymbol;
    default:
      return CharClass::kPunct;
  }
}

enum class Kind { kWord, kNumber, kPunct, kSymbol, kFlag };

struct Unit {
  char32_t cp;
  CharClass cls;
  std::size_t end;  // byte offset just past this code point
};

Unit read_unit(std::string_view text, std::size_t pos) {
  const auto b = static_cast<unsigned char>(text[pos]);
  if (b < 0x80) return {b, classify_ascii(b), pos + 1};
  const char32_t cp = decode_utf8(text, pos);
  return {cp, classify_char(cp), pos};
}

// Whether `next` may follow a joiner inside a token of this kind.
bool joins(Kind kind, CharClass next) {
  if (kind == Kind::kWord) return next == CharClass::kLetter;    // Indic conjuncts
  if (kind == Kind::kSymbol) return next == CharClass::kSymbol;  // emoji ZWJ sequences
  return false;
}

Kind kind_of(CharClass cls) {
  switch (cls) {
    case CharClass::kLetter:
      return Kind::kWord;
    case CharClass::kDigit:
      return Kind::kNumber;
    case CharClass::kPunct:
      return Kind::kPunct;
    case CharClass::kRegional:
      return Kind::kFlag;
    default:
      return Kind::kSymbol;  // symbols, and marks or skin tones with nothing before them
  }
}

}  // namespace

CharClass classify_char(char32_t cp) {
  if (cp < 0x80) return classify_ascii(cp);
  if (is_white_space(cp)) return CharClass::kSpace;
  const auto it = std::upper_bound(std::begin(kRanges), std::end(kRanges), cp,
                                   [](char32_t c, const Range& r) { return c < r.lo; });
  if (it != std::begin(kRanges) && cp <= std::prev(it)->hi) return std::prev(it)->cls;
  return CharClass::kLetter;
}

std::vector<std::string_view> pretokenize(std::string_view text, std::size_t max_tokens) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (pos < text.size() && tokens.size() < max_tokens) {
    const Unit first = read_unit(text, pos);
    if (first.cls == CharClass::kSpace || first.cls == CharClass::kJoiner) {
      pos = first.end;  // separators, and invisible joiners with nothing to join
      continue;
    }
    Kind kind = kind_of(first.cls);
    bool flag_open = kind == Kind::kFlag;  // a flag takes exactly two letters
    std::size_t end = first.end;
    for (int length = 1; end < text.size() && length < kMaxTokenCodePoints; ++length) {
      const Unit u = read_unit(text, end);
      if (u.cls == CharClass::kMark || (u.cls == CharClass::kModifier && kind == Kind::kSymbol)) {
        end = u.end;
        continue;
      }
      if (u.cls == CharClass::kJoiner) {
        // Keep the joiner only with what it joins; a trailing one is left out of the token.
        if (u.end >= text.size() || length + 1 >= kMaxTokenCodePoints) break;
        const Unit next = read_unit(text, u.end);
        if (!joins(kind, next.cls)) break;
        end = next.end;
        ++length;
        continue;
      }
      if (kind == Kind::kWord && u.cls == CharClass::kLetter) {
        end = u.end;
        continue;
      }
      if (kind == Kind::kWord && u.cp == '\'' && u.end < text.size() &&
          length + 1 < kMaxTokenCodePoints) {
        const Unit next = read_unit(text, u.end);
        if (next.cls != CharClass::kLetter) break;
        end = next.end;
        ++length;
        continue;
      }
      if (kind == Kind::kNumber && u.cls == CharClass::kDigit) {
        end = u.end;
        continue;
      }
      if (flag_open && u.cls == CharClass::kRegional) {
        flag_open = false;
        end = u.end;
        continue;
      }
      break;
    }
    tokens.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return tokens;
}

}  // namespace router
