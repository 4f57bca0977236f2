// Normalisation with hand-written case tables. We keep them here rather than pulling in ICU: the
// classifier only needs stable, simple lowercasing for the alphabets its mail arrives in, and a
// table we own cannot change under us with a library upgrade (which would silently change
// tokens and invalidate trained models).
#include "text/normalize.h"

#include <cstddef>

#include "text/utf8.h"

namespace router {
namespace {

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

// Blocks where upper and lower case alternate: even code point upper, the next one lower.
char32_t even_upper(char32_t c) { return (c & 1) ? c : c + 1; }
// ... and where the odd code point is the upper one.
char32_t odd_upper(char32_t c) { return (c & 1) ? c + 1 : c; }

struct CasePair {
  char32_t upper, lower;
};

// Latin Extended-B letters of living languages (Vietnamese, Romanian, Azerbaijani, Pinyin,
// African alphabets) whose lowercase is not simply the next code point.
constexpr CasePair kLatinBSingles[] = {
    {0x186, 0x254}, {0x189, 0x256}, {0x18A, 0x257}, {0x18F, 0x259}, {0x190, 0x25B},
    {0x197, 0x268}, {0x19D, 0x272}, {0x1A0, 0x1A1}, {0x1AF, 0x1B0}, {0x1B7, 0x292},
    {0x1C4, 0x1C6}, {0x1C5, 0x1C6}, {0x1C7, 0x1C9}, {0x1C8, 0x1C9}, {0x1CA, 0x1CC},
    {0x1CB, 0x1CC}, {0x1F1, 0x1F3}, {0x1F2, 0x1F3}, {0x1F4, 0x1F5},
};

constexpr CasePair kGreekSingles[] = {
    {0x37F, 0x3F3}, {0x3CF, 0x3D7}, {0x3F4, 0x3B8}, {0x3F7, 0x3F8}, {0x3F9, 0x3F2}, {0x3FA, 0x3FB},
};

// The lowercase of `c` from a short table, or 0 when it is not listed.
template <std::size_t N>
char32_t lookup(const CasePair (&table)[N], char32_t c) {
  for (const auto& pair : table) {
    if (pair.upper == c) return pair.lower;
  }
  return 0;
}

char32_t lower_latin_extended(char32_t c) {
  // Latin Extended-A (U+0100..U+017F).
  if (c < 0x180) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xFF;
    if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;  // already lower
    if (in(c, 0x139, 0x148) || in(c, 0x179, 0x17E)) return odd_upper(c);
    return even_upper(c);
  }
  // Latin Extended-B (U+0180..U+024F): the common letters; the rest of the block is left alone.
  if (const char32_t m = lookup(kLatinBSingles, c)) return m;
  if (in(c, 0x1CD, 0x1DC)) return odd_upper(c);
  if (in(c, 0x1DE, 0x1EF) || in(c, 0x1F8, 0x21F) || in(c, 0x222, 0x233)) return even_upper(c);
  return c;
}

char32_t lower_greek(char32_t c) {
  if (in(c, 0x391, 0x3A1) || in(c, 0x3A3, 0x3AB)) return c + 32;
  if (c == 0x386) return 0x3AC;
  if (in(c, 0x388, 0x38A)) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (in(c, 0x38E, 0x38F)) return c + 63;
  if (in(c, 0x370, 0x373) || c == 0x376 || in(c, 0x3D8, 0x3EF)) return even_upper(c);
  if (const char32_t m = lookup(kGreekSingles, c)) return m;
  if (in(c, 0x3FD, 0x3FF)) return c - 130;
  return c;
}

char32_t lower_cyrillic(char32_t c) {
  if (in(c, 0x400, 0x40F)) return c + 80;
  if (in(c, 0x410, 0x42F)) return c + 32;
  if (c == 0x4C0) return 0x4CF;
  if (in(c, 0x4C1, 0x4CE)) return odd_upper(c);
  if (in(c, 0x460, 0x481) || in(c, 0x48A, 0x4BF) || in(c, 0x4D0, 0x52F)) return even_upper(c);
  return c;
}

}  // namespace

char32_t to_lower(char32_t c) {
  if (c < 0x80) return in(c, 'A', 'Z') ? c + 32 : c;
  if (c < 0x100) return (in(c, 0xC0, 0xDE) && c != 0xD7) ? c + 32 : c;
  if (c < 0x250) return lower_latin_extended(c);
  if (in(c, 0x370, 0x3FF)) return lower_greek(c);
  if (in(c, 0x400, 0x52F)) return lower_cyrillic(c);
  if (in(c, 0x531, 0x556)) return c + 48;                                      // Armenian
  if (in(c, 0x10A0, 0x10C5) || c == 0x10C7 || c == 0x10CD) return c + 0x1C60;  // Georgian
  if (in(c, 0x1C90, 0x1CBA) || in(c, 0x1CBD, 0x1CBF)) return c - 0xBC0;        // Mtavruli
  if (in(c, 0x1E00, 0x1E95) || in(c, 0x1EA0, 0x1EFF)) return even_upper(c);    // Latin Ext. Add.
  if (c == 0x1E9E) return 0xDF;                                                // capital sharp s
  if (in(c, 0x1F00, 0x1FFF)) {
    // Greek Extended: capitals sit 8 above their lowercase in these rows.
    const bool capital_row =
        in(c, 0x1F08, 0x1F0F) || in(c, 0x1F18, 0x1F1D) || in(c, 0x1F28, 0x1F2F) ||
        in(c, 0x1F38, 0x1F3F) || in(c, 0x1F48, 0x1F4D) || in(c, 0x1F68, 0x1F6F) ||
        in(c, 0x1F88, 0x1F8F) || in(c, 0x1F98, 0x1F9F) || in(c, 0x1FA8, 0x1FAF) ||
        in(c, 0x1FB8, 0x1FB9) || in(c, 0x1FD8, 0x1FD9) || in(c, 0x1FE8, 0x1FE9) ||
        (in(c, 0x1F59, 0x1F5F) && (c & 1));
    return capital_row ? c - 8 : c;
  }
  if (c == 0x2126) return 0x3C9;                                             // ohm sign
  if (c == 0x212A) return 'k';                                               // kelvin sign
  if (c == 0x212B) return 0xE5;                                              // angstrom sign
  if (in(c, 0xA640, 0xA66D) || in(c, 0xA680, 0xA69B)) return even_upper(c);  // Cyrillic Ext.
  if (in(c, 0xFF21, 0xFF3A)) return c + 32;                                  // fullwidth A-Z
  return c;
}

bool is_white_space(char32_t c) {
  if (c <= 0x20 || in(c, 0x7F, 0xA0)) return true;  // C0, space, DEL, C1 (incl. NEL), NBSP
  if (c < 0x1680) return false;
  return c == 0x1680 || in(c, 0x2000, 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000 || c == 0x2581;
}

bool is_dropped(char32_t c) {
  if (c < 0xAD) return false;
  return c == 0xAD || c == 0x61C || c == 0x180E || c == 0x200B || in(c, 0x200E, 0x200F) ||
         in(c, 0x202A, 0x202E) || in(c, 0x2060, 0x2064) || in(c, 0x2066, 0x206F) || c == 0xFEFF ||
         c == 0xE0001;
}

std::string normalize(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  bool space_pending = false;  // a space is written only before the next visible character
  std::size_t pos = 0;
  while (pos < raw.size()) {
    const auto b = static_cast<unsigned char>(raw[pos]);
    char32_t cp;
    if (b < 0x80) {  // fast path: most mail is ASCII
      cp = b;
      ++pos;
    } else {
      cp = decode_utf8(raw, pos);  // ill-formed -> U+FFFD
    }
    if (is_white_space(cp)) {
      space_pending = !out.empty();
      continue;
    }
    if (is_dropped(cp)) continue;
    if (space_pending) {
      out.push_back(' ');
      space_pending = false;
    }
    if (cp == 0x2018 || cp == 0x2019 || cp == 0x02BC || cp == 0xFF07) {
      cp = '\'';  // typographic apostrophes: "don’t" and "don't" must read alike
    } else if (cp == 0x201C || cp == 0x201D || cp == 0xFF02) {
      cp = '"';
    } else {
      cp = to_lower(cp);
    }
    append_utf8(out, cp);
  }
  return out;
}

}  // namespace router
