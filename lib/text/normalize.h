// Text normalisation, the first step of the pipeline: any bytes -> one canonical string.
// Promises: the result is well-formed UTF-8, lowercased (simple case mapping for the cased
// alphabets: Latin, Greek, Cyrillic, Armenian, Georgian; caseless scripts such as Devanagari
// are untouched), every run of white space is one ASCII space, there is no leading or trailing
// space, and invisible format characters that carry no meaning are gone.
#pragma once

#include <string>
#include <string_view>

namespace router {

// Simple (one code point to one code point) lowercase mapping; identity where no mapping is
// known. U+0130 (capital I with dot) becomes plain 'i'.
char32_t to_lower(char32_t cp);

// White space for us: every C0/C1 control (NUL, tab, CR, LF, ...), DEL, U+0020, U+00A0, U+1680,
// U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, and U+2581, which SentencePiece
// uses as its word marker and so must never reach it as text.
bool is_white_space(char32_t cp);

// Invisible characters that are deleted outright (not turned into a space), so that "re<ZWSP>fund"
// and "refund" read alike: soft hyphen, ZWSP, word joiner, invisible operators, BOM, bidi marks
// and embeddings, Arabic letter mark, Mongolian vowel separator, the language tag U+E0001.
// ZWJ and ZWNJ are kept: emoji sequences and Indic spellings need them.
bool is_dropped(char32_t cp);

// The full normalisation: sanitize UTF-8 (ill-formed -> U+FFFD), drop the invisible characters,
// lowercase, map typographic quotes to ASCII (U+2018, U+2019, U+02BC, U+FF07 -> ', U+201C,
// U+201D, U+FF02 -> "), collapse white space (so CRLF, CR and LF all become one space) and trim.
// No Unicode composition (NFC/NFKC) is applied. Linear time.
std::string normalize(std::string_view raw);

}  // namespace router
