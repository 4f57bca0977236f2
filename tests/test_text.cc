// Tests of the text pipeline below the subword model: strict UTF-8 reading, normalisation and
// pre-tokenisation. The golden cases in tests/fixtures/tokenizer/cases.json are the spec (written
// by hand); the table tests here pin each rule, and seeded fuzz loops check the promises that
// must hold for any input (valid output, no crash, idempotence, tokens cover the text).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/normalize.h"
#include "text/pretokenize.h"
#include "text/utf8.h"

namespace router {
namespace {

using nlohmann::json;

const std::string kFixtureDir = std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/tokenizer/";

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// Renders text for failure messages: invisible and non-ASCII-space characters as \uXXXX,
// ill-formed bytes as \xNN, everything else as it is.
std::string show(std::string_view s) {
  std::string out = "\"";
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t start = pos;
    const char32_t cp = decode_utf8(s, pos);
    const bool substituted = cp == kReplacementChar && pos - start != 3;
    char buf[16];
    if (substituted) {
      for (std::size_t i = start; i < pos; ++i) {
        std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(s[i]));
        out += buf;
      }
    } else if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || is_dropped(cp) || cp == 0x200C ||
               cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) || is_white_space(cp) ||
               cp == kReplacementChar || (cp >= 0x300 && cp <= 0x36F) || cp == 0x20E3) {
      std::snprintf(buf, sizeof buf, cp == ' ' ? " " : "\\u%04X", static_cast<unsigned>(cp));
      out += buf;
    } else if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else {
      out.append(s.substr(start, pos - start));
    }
  }
  return out + "\"";
}

template <typename Strings>
std::string show_all(const Strings& v) {
  std::string out = "[";
  for (const auto& s : v) out += (out.size() > 1 ? ", " : "") + show(s);
  return out + "]";
}

struct GoldenCase {
  std::string name, input, normalized;
  std::vector<std::string> pretokens;
};

std::vector<GoldenCase> load_golden_cases() {
  std::ifstream in(kFixtureDir + "cases.json");
  EXPECT_TRUE(in) << "cannot open " << kFixtureDir << "cases.json";
  const json doc = json::parse(in);
  std::vector<GoldenCase> cases;
  for (const auto& c : doc.at("cases")) {
    GoldenCase g;
    g.name = c.at("name").get<std::string>();
    g.input = c.contains("input_hex") ? from_hex(c.at("input_hex").get<std::string>())
                                      : c.at("input").get<std::string>();
    g.normalized = c.at("normalized").get<std::string>();
    g.pretokens = c.at("pretokens").get<std::vector<std::string>>();
    cases.push_back(std::move(g));
  }
  return cases;
}

std::vector<char32_t> decode_all(std::string_view s) {
  std::vector<char32_t> out;
  std::size_t pos = 0;
  while (pos < s.size()) out.push_back(decode_utf8(s, pos));
  return out;
}

std::string random_bytes(std::mt19937& rng, std::size_t max_len) {
  // Mostly bytes that make interesting UTF-8: ASCII, continuation and lead bytes, NUL.
  static constexpr unsigned char kPool[] = {0x00, 0x20, 0x41, 0x61, 0x27, 0x2E, 0x80, 0x8F,
                                            0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE2,
                                            0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x0D, 0x0A};
  std::string s(rng() % (max_len + 1), '\0');
  for (auto& c : s) {
    c = static_cast<char>(rng() % 2 ? kPool[rng() % std::size(kPool)] : rng() % 256);
  }
  return s;
}

// ---- UTF-8 ----------------------------------------------------------------------------------

TEST(Utf8, DecodesWellFormedSequences) {
  const std::vector<char32_t> expected = {'a', 0xE9, 0x20B9, 0x1F600, 0x10FFFF, 0xFFFD};
  const auto got = decode_all("a\xC3\xA9\xE2\x82\xB9\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xEF\xBF\xBD");
  EXPECT_EQ(got, expected);
}

TEST(Utf8, ReplacesEachMaximalSubpartWithOneReplacementChar) {
  constexpr char32_t R = kReplacementChar;
  const struct {
    const char* name;
    std::string bytes;
    std::vector<char32_t> expected;
  } cases[] = {
      {"lone FF", "\xFF", {R}},
      {"lone FE", "\xFE", {R}},
      {"lone continuation", "\x80", {R}},
      {"truncated E2 82 at end", "\xE2\x82", {R}},
      {"truncated E2 82 then ASCII",
       "\xE2\x82"
       "A",
       {R, 'A'}},
      {"truncated 4-byte then ASCII",
       "\xF0\x9F\x98"
       "b",
       {R, 'b'}},
      {"overlong C0 AF", "\xC0\xAF", {R, R}},
      {"overlong E0 80 AF", "\xE0\x80\xAF", {R, R, R}},
      {"overlong F0 80 80 AF", "\xF0\x80\x80\xAF", {R, R, R, R}},
      {"surrogate ED A0 80", "\xED\xA0\x80", {R, R, R}},
      {"surrogate pair as UTF-8", "\xED\xA0\xBD\xED\xB8\x80", {R, R, R, R, R, R}},
      {"above U+10FFFF: F4 90 80 80", "\xF4\x90\x80\x80", {R, R, R, R}},
      {"5-byte form F8", "\xF8\x88\x80\x80\x80", {R, R, R, R, R}},
      {"lead byte then lead byte", "\xE2\xE2\x82\xAC", {R, 0x20AC}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(decode_all(c.bytes), c.expected) << "case: " << c.name;
  }
}

TEST(Utf8, AppendThenDecodeRoundTripsEveryScalarValue) {
  std::string buf;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp == 0xD800) cp = 0xE000;  // surrogates are not scalar values
    buf.clear();
    append_utf8(buf, cp);
    std::size_t pos = 0;
    const char32_t back = decode_utf8(buf, pos);
    ASSERT_EQ(back, cp) << "U+" << std::hex << static_cast<uint32_t>(cp);
    ASSERT_EQ(pos, buf.size()) << "U+" << std::hex << static_cast<uint32_t>(cp);
  }
  buf.clear();
  append_utf8(buf, 0xD800);
  append_utf8(buf, 0x110000);
  EXPECT_EQ(buf, "\xEF\xBF\xBD\xEF\xBF\xBD") << "surrogates and out-of-range become U+FFFD";
}

TEST(Utf8, ValidityCheck) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8(std::string("nul\0inside", 10)));
  EXPECT_TRUE(is_valid_utf8("\xEF\xBF\xBD")) << "a genuine U+FFFD is well-formed";
  EXPECT_TRUE(is_valid_utf8("केक 👨‍👩‍👧"));
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xEF\xBF"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));
}

TEST(Utf8, SanitizeGivesValidUtf8ForAnyBytes) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    const std::string raw = random_bytes(rng, 24);
    const std::string clean = sanitize_utf8(raw);
    ASSERT_TRUE(is_valid_utf8(clean)) << "input " << show(raw) << " gave " << show(clean);
    ASSERT_EQ(clean.find('\0'), std::string::npos) << "input " << show(raw);
    ASSERT_EQ(sanitize_utf8(clean), clean) << "sanitize must be idempotent; input " << show(raw);
  }
}

TEST(Utf8, SanitizeKeepsValidTextAndTurnsNulIntoSpace) {
  EXPECT_EQ(sanitize_utf8("Rs. 60 ₹850 केक 😀"), "Rs. 60 ₹850 केक 😀");
  EXPECT_EQ(sanitize_utf8(std::string("a\0b", 3)), "a b");
  EXPECT_EQ(sanitize_utf8("a\xFF"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(sanitize_utf8(""), "");
}

// ---- normalisation ----------------------------------------------------------------------------

TEST(Normalize, GoldenCases) {
  for (const auto& c : load_golden_cases()) {
    const std::string got = normalize(c.input);
    EXPECT_EQ(got, c.normalized) << "case '" << c.name << "': input " << show(c.input)
                                 << "\n  expected " << show(c.normalized) << "\n  got      "
                                 << show(got);
  }
}

TEST(Normalize, LowercasesCasedScriptsOnly) {
  const struct {
    const char* upper;
    const char* lower;
  } cases[] = {
      {"ABCXYZ", "abcxyz"},
      {"ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞ", "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþ"},
      {"×ß÷", "×ß÷"},
      {"ĀĂĄĆĈĊČĎĐĒĖĘĚĜĞĠĢĤĦĨĪĬĮĲĴĶ", "āăąćĉċčďđēėęěĝğġģĥħĩīĭįĳĵķ"},
      {"ĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽ", "ĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷÿźżž"},
      {"İı", "iı"},
      {"ȘȚƠƯƏ", "șțơưə"},
      {"ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", "αβγδεζηθικλμνξοπρστυφχψω"},
      {"ΆΈΉΊΌΎΏΪΫ", "άέήίόύώϊϋ"},
      {"АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ", "абвгдежзийклмнопрстуфхцчшщъыьэюя"},
      {"ЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏ", "ѐёђѓєѕіїјљњћќѝўџ"},
      {"ҐҒӀӁӐ", "ґғӏӂӑ"},
      {"ԱԲԳ", "աբգ"},
      {"ẞẠỆ", "ßạệ"},
      {"ＡＢＣ", "ａｂｃ"},
      {"केक नहीं ١٢٣ 日本語 ㄱ", "केक नहीं ١٢٣ 日本語 ㄱ"},
  };
  for (const auto& c : cases) {
    const std::string got = normalize(c.upper);
    EXPECT_EQ(got, c.lower) << "input " << show(c.upper) << "\n  expected " << show(c.lower)
                            << "\n  got      " << show(got);
  }
}

TEST(Normalize, ToLowerIsStableAndLeavesCaselessScriptsAlone) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp == 0xD800) cp = 0xE000;  // surrogates never come out of decode_utf8
    const char32_t lower = to_lower(cp);
    ASSERT_EQ(to_lower(lower), lower)
        << "to_lower is not idempotent at U+" << std::hex << static_cast<uint32_t>(cp);
    ASSERT_FALSE(lower >= 0xD800 && lower <= 0xDFFF)
        << "surrogate from U+" << std::hex << static_cast<uint32_t>(cp);
    ASSERT_LE(lower, 0x10FFFFu);
    const bool caseless = (cp >= 0x0900 && cp <= 0x0DFF) || (cp >= 0x0600 && cp <= 0x06FF) ||
                          (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x1F000 && cp <= 0x1FAFF);
    if (caseless) {
      ASSERT_EQ(lower, cp) << "caseless U+" << std::hex << static_cast<uint32_t>(cp);
    }
  }
}

TEST(Normalize, CollapsesEveryKindOfWhiteSpace) {
  const char* separators[] = {" ",
                              "\t",
                              "\n",
                              "\r",
                              "\r\n",
                              "\v",
                              "\f",
                              "\x1B",
                              "\x7F",
                              "\xC2\x85",
                              "\xC2\xA0",
                              "\xE1\x9A\x80",
                              "\xE2\x80\x80",
                              "\xE2\x80\x83",
                              "\xE2\x80\x8A",
                              "\xE2\x80\xA8",
                              "\xE2\x80\xA9",
                              "\xE2\x80\xAF",
                              "\xE2\x81\x9F",
                              "\xE3\x80\x80"};
  for (const char* sep : separators) {
    const std::string raw = std::string(sep) + "a" + sep + sep + "b " + sep + " c" + sep;
    const std::string got = normalize(raw);
    EXPECT_EQ(got, "a b c") << "separator " << show(sep) << ": got " << show(got);
  }
  EXPECT_EQ(normalize(std::string("a\0\0b", 4)), "a b") << "NUL bytes are white space";
}

TEST(Normalize, DropsInvisibleCharactersButKeepsJoiners) {
  EXPECT_EQ(normalize("re\xE2\x80\x8B"
                      "fund"),
            "refund")
      << "ZWSP";
  EXPECT_EQ(normalize("\xEF\xBB\xBFhello"), "hello") << "BOM";
  EXPECT_EQ(normalize("can\xC2\xAD"
                      "cel"),
            "cancel")
      << "soft hyphen";
  EXPECT_EQ(normalize("a\xE2\x81\xA0"
                      "b"),
            "ab")
      << "word joiner";
  EXPECT_EQ(normalize("\xE2\x80\x8F"
                      "abc\xE2\x80\xAE"),
            "abc")
      << "bidi marks";
  EXPECT_EQ(normalize("\xE2\x80\x8D"), "\xE2\x80\x8D") << "ZWJ is kept";
  EXPECT_EQ(normalize("\xE2\x80\x8C"), "\xE2\x80\x8C") << "ZWNJ is kept";
}

TEST(Normalize, IsIdempotentAndAlwaysValid) {
  std::mt19937 rng(777);
  for (int i = 0; i < 20000; ++i) {
    const std::string raw = random_bytes(rng, 32);
    const std::string once = normalize(raw);
    ASSERT_TRUE(is_valid_utf8(once)) << "input " << show(raw);
    ASSERT_EQ(normalize(once), once) << "input " << show(raw);
    ASSERT_TRUE(once.empty() || (once.front() != ' ' && once.back() != ' ')) << show(once);
    ASSERT_EQ(once.find("  "), std::string::npos) << show(once);
  }
  for (const auto& c : load_golden_cases()) {
    EXPECT_EQ(normalize(c.normalized), c.normalized) << "case '" << c.name << "'";
  }
}

// ---- pre-tokenisation -------------------------------------------------------------------------

TEST(Pretokenize, GoldenCases) {
  for (const auto& c : load_golden_cases()) {
    const std::string text = normalize(c.input);
    const auto views = pretokenize(text);
    const std::vector<std::string> got(views.begin(), views.end());
    EXPECT_EQ(got, c.pretokens) << "case '" << c.name << "': text " << show(text) << "\n  expected "
                                << show_all(c.pretokens) << "\n  got      " << show_all(got);
  }
}

TEST(Pretokenize, ReturnsViewsIntoTheTextInOrder) {
  const std::string text =
      normalize("Refund ₹850.00 for order #CR-48213 👍🏽 केक, please!");
  const auto tokens = pretokenize(text);
  ASSERT_FALSE(tokens.empty());
  const char* cursor = text.data();
  for (const auto t : tokens) {
    ASSERT_FALSE(t.empty());
    EXPECT_GE(t.data(), cursor) << "tokens must be views into the text, in order";
    EXPECT_LE(t.data() + t.size(), text.data() + text.size());
    cursor = t.data() + t.size();
  }
}

TEST(Pretokenize, MaxTokensGivesTheFirstTokens) {
  std::mt19937 rng(31);
  for (int i = 0; i < 2000; ++i) {
    const std::string text = normalize(random_bytes(rng, 48));
    const auto all = pretokenize(text);
    for (std::size_t n = 0; n <= all.size() + 1; ++n) {
      const auto some = pretokenize(text, n);
      ASSERT_EQ(some.size(), std::min(n, all.size())) << show(text);
      ASSERT_TRUE(std::equal(some.begin(), some.end(), all.begin())) << show(text);
    }
  }
}

TEST(Pretokenize, ClassifiesCharacters) {
  const struct {
    char32_t cp;
    CharClass cls;
  } cases[] = {
      {'a', CharClass::kLetter},       {0xE9, CharClass::kLetter},
      {0x915, CharClass::kLetter},     {0x947, CharClass::kLetter},
      {0x94D, CharClass::kLetter},     {0x4E00, CharClass::kLetter},
      {'7', CharClass::kDigit},        {0x967, CharClass::kDigit},
      {0xFF11, CharClass::kDigit},     {'.', CharClass::kPunct},
      {0x964, CharClass::kPunct},      {0x2014, CharClass::kPunct},
      {'$', CharClass::kSymbol},       {0x20B9, CharClass::kSymbol},
      {0x1F600, CharClass::kSymbol},   {0x2764, CharClass::kSymbol},
      {0xFFFD, CharClass::kSymbol},    {0x301, CharClass::kMark},
      {0xFE0F, CharClass::kMark},      {0x20E3, CharClass::kMark},
      {0xE0067, CharClass::kMark},     {0x1F3FD, CharClass::kModifier},
      {0x1F1EE, CharClass::kRegional}, {0x200D, CharClass::kJoiner},
      {' ', CharClass::kSpace},        {0xA0, CharClass::kSpace},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(static_cast<int>(classify_char(c.cp)), static_cast<int>(c.cls))
        << "U+" << std::hex << static_cast<uint32_t>(c.cp);
  }
}

std::size_t count_code_points(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < s.size(); ++n) decode_utf8(s, pos);
  return n;
}

TEST(Pretokenize, CapsTokenLength) {
  const std::string combining_acute = "\xCC\x81";
  std::string zalgo = "a";
  for (int i = 0; i < 1000; ++i) zalgo += combining_acute;
  std::string family;  // 40 emoji joined by 39 ZWJ: 79 code points
  for (int i = 0; i < 40; ++i) family += (i ? "\xE2\x80\x8D" : "") + std::string("👩");
  const struct {
    const char* name;
    std::string text;
    std::vector<std::size_t> lengths;  // in code points
  } cases[] = {
      {"200 letters", std::string(200, 'a'), {64, 64, 64, 8}},
      {"130 digits", std::string(130, '7'), {64, 64, 2}},
      {"64 letters", std::string(64, 'b'), {64}},
      {"zalgo", zalgo, {64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 41}},
      {"long zwj sequence", family, {63, 15}},  // the ZWJ at the cut is dropped
      {"apostrophes", "o'" + std::string(70, 'x'), {64, 8}},
  };
  for (const auto& c : cases) {
    std::vector<std::size_t> got;
    std::string joined;
    for (const auto t : pretokenize(c.text)) {
      got.push_back(count_code_points(t));
      joined.append(t);
    }
    EXPECT_EQ(got, c.lengths) << "case '" << c.name << "': token lengths in code points";
    if (c.text.find("\xE2\x80\x8D") == std::string::npos) {
      EXPECT_EQ(joined, c.text) << "case '" << c.name << "': tokens must cover the text";
    }
  }
}

TEST(Pretokenize, TokensCoverAllVisibleText) {
  // For any input, the tokens hold every character of the normalised text except spaces and
  // joiners that join nothing, in order, with no space inside a token.
  std::mt19937 rng(4242);
  const char* pieces[] = {
      "a", "Z",  "7", "'", ".",        "₹",    "😀",       "🏽", "\xE2\x80\x8D", "\xEF\xB8\x8F",
      "🇮", "केक", "्",  " ", "\xCC\x81", "\xFF", "\xE2\x82"};
  for (int i = 0; i < 20000; ++i) {
    std::string raw;
    const int n = rng() % 12;
    for (int k = 0; k < n; ++k) raw += pieces[rng() % std::size(pieces)];
    const std::string text = normalize(raw);
    std::string joined;
    for (const auto t : pretokenize(text)) {
      ASSERT_FALSE(t.empty()) << show(raw);
      ASSERT_EQ(t.find(' '), std::string_view::npos) << show(raw);
      ASSERT_LE(count_code_points(t), static_cast<std::size_t>(kMaxTokenCodePoints)) << show(raw);
      joined.append(t);
    }
    std::string expected;
    for (char c : text) {
      if (c != ' ') expected.push_back(c);
    }
    // Joiners may be skipped; compare with them removed from both sides.
    auto strip = [](std::string s) {
      for (const std::string zw : {"\xE2\x80\x8D", "\xE2\x80\x8C"}) {
        for (std::size_t p; (p = s.find(zw)) != std::string::npos;) s.erase(p, zw.size());
      }
      return s;
    };
    ASSERT_EQ(strip(joined), strip(expected)) << "input " << show(raw) << " text " << show(text);
  }
}

// ---- the two steps together on a large email ---------------------------------------------------

TEST(TextPipeline, LargeEmailIsLinear) {
  std::string email;
  const std::string paragraph =
      "Hello team,\r\nI was charged Rs. 850.00 twice for order #CR-48213 \xF0\x9F\x98\xA1!! "
      "\xE0\xA4\x95\xE0\xA5\x87\xE0\xA4\x95 nahi aaya.\tPlease refund\xC2\xA0\xE2\x82\xB9"
      "850 "
      "ASAP \xFF\xE2\x82 thanks\r\n\r\n";
  while (email.size() < 100 * 1024) email += paragraph;
  const auto start = std::chrono::steady_clock::now();
  const std::string text = normalize(email);
  const auto tokens = pretokenize(text);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("normalize_pretokenize_100kb_ms", std::to_string(ms));
  EXPECT_GT(tokens.size(), 10000u);
  EXPECT_TRUE(is_valid_utf8(text));
  // Recorded, not asserted: speed is measured in bench/, never timed in tests.
}

}  // namespace
}  // namespace router
