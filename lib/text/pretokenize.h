// Pre-tokenisation: normalised text -> the units the subword model sees, as views into the text
// (no copies; the views live as long as the text). Rules, in order of precedence:
//   - white space separates and is never part of a token;
//   - a word is a run of letters (any script) with their combining marks, so Devanagari words
//     keep their vowel signs and viramas; ZWJ/ZWNJ stay inside a word when a letter follows; an
//     apostrophe between two letters stays inside ("don't", "o'brien"), elsewhere it is
//     punctuation on its own;
//   - a number is a run of decimal digits (any script); '.' and ',' always split, so
//     "850.00" -> "850" "." "00", "#cr-48213" -> "#" "cr" "-" "48213", "rs." -> "rs" ".";
//     letters and digits split from each other ("a1" -> "a" "1");
//   - every punctuation mark is a token of its own;
//   - every symbol (currency, maths, emoji, ...) is a token of its own, together with what
//     modifies it: variation selectors, skin tones, keycap and other combining marks, tag
//     characters, and further symbols joined by ZWJ; two regional indicators make one flag.
//   - no token is longer than kMaxTokenCodePoints: a longer run (a hex dump, a base64 line,
//     "aaaa...") continues as a new token. This bounds what the subword trainer sees (it aborts
//     on words of 65,536 characters) and costs nothing real: pieces are at most 16 long.
// Invisible joiners that join nothing are skipped. Never throws; linear time.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <vector>

namespace router {

inline constexpr int kMaxTokenCodePoints = 64;

enum class CharClass {
  kSpace,     // separates tokens
  kLetter,    // letters of every script, and Brahmic vowel signs/viramas (word-internal)
  kMark,      // combining marks, variation selectors, tag characters: attach to what precedes
  kDigit,     // decimal digits of every script
  kPunct,     // punctuation
  kSymbol,    // currency, maths, arrows, emoji, private use, U+FFFD
  kModifier,  // emoji skin tones U+1F3FB..U+1F3FF: attach to a preceding symbol
  kRegional,  // regional indicators: two make a flag
  kJoiner,    // ZWJ, ZWNJ and other invisible format characters
};

CharClass classify_char(char32_t cp);

// `text` should be the output of normalize(); other text is handled too (any ill-formed UTF-8
// reads as U+FFFD, a symbol) but is not lowercased or cleaned. At most `max_tokens`: the first
// ones, as a single pass left to right finds them.
std::vector<std::string_view> pretokenize(
    std::string_view text, std::size_t max_tokens = std::numeric_limits<std::size_t>::max());

}  // namespace router
