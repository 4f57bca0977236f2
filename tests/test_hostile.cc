// Hostile input through the real router binary and the library: invalid UTF-8, NUL bytes, text
// that is only white space or only emoji, a 10 MB email, a 1 MB line, deeply nested JSON, and
// 100,000 records with one bad record in the middle. Each gives a clear result or a clear error
// with the documented exit code (docs/reliability.md). The tiny fixture model is used: the tests
// check behaviour, never what the model predicts.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "input/mail.h"
#include "model/json_format.h"
#include "model/model.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using router::test::parse_jsonl;
using router::test::quote;
using router::test::slurp;
using router::test::spit;
using router::test::TempDir;
using ojson = nlohmann::ordered_json;

const std::string kTiny = router::test::source_path("tests/fixtures/models/tiny.json");

const router::Model& tiny() {
  static const router::Model model = router::load_model(kTiny);
  return model;
}

// An email of at least `bytes` bytes: an ordinary paragraph repeated.
std::string long_email(size_t bytes) {
  const std::string paragraph =
      "Hello, my order 48213 has not arrived and the cake was for a birthday today. "
      "Please tell me where it is, or cancel it and refund me. Thanks! \xF0\x9F\x8E\x82\n";
  std::string s;
  s.reserve(bytes + paragraph.size());
  while (s.size() < bytes) s += paragraph;
  return s;
}

class Hostile : public ::testing::Test {
 protected:
  TempDir tmp_{"router_hostile"};
  std::string write(const std::string& name, const std::string& data) {
    spit(tmp_.path(name), data);
    return tmp_.path(name);
  }
  router::test::CommandResult router(const std::string& args) {
    return router::test::run_router(args + " -m " + quote(kTiny), tmp_.dir());
  }
  // Label and confidence of `classify -f FILE`, checked to be one well-formed result line.
  void expect_one_label(const router::test::CommandResult& r, const std::string& what) {
    ASSERT_EQ(r.code, 0) << what << ": " << r.err;
    const auto tab = r.out.find('\t');
    ASSERT_NE(tab, std::string::npos) << what << ": " << r.out;
    const std::string label = r.out.substr(0, tab);
    EXPECT_TRUE(label == "cancel_order" || label == "thanks" || label == "where_is_order")
        << what << ": " << r.out;
    EXPECT_EQ(r.out.back(), '\n');
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": " << r.out;
  }
};

// ---- Bytes that are not text ---------------------------------------------------------------

TEST_F(Hostile, InvalidUtf8IsReadWithReplacementCharacters) {
  const std::vector<std::string> inputs = {
      "where is my order \xFF\xFE", "\xC3\x28 cancel \xE2\x82 it \xF0\x9F\x98",  // truncated
      "\xED\xA0\x80 surrogate \xF4\x90\x80\x80 beyond U+10FFFF \xC0\xAF overlong",
      std::string(1000, '\x80')};
  for (const auto& text : inputs) {
    expect_one_label(router("classify -f " + quote(write("bad.txt", text))), "classify " + text);
    const auto ids = tiny().encode(text);
    EXPECT_FALSE(ids.empty());
  }
  // The same bytes inside a JSON string are not JSON: the record is named, nothing is written.
  const std::string in =
      write("bad.jsonl", "{\"text\": \"cancel my order\"}\n{\"text\": \"where \xFF\xFE is it\"}\n");
  const auto r =
      router("batch --on-error fail " + quote(in) + " -o " + quote(tmp_.path("out.jsonl")));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(in + ":2: malformed JSON"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp_.path("out.jsonl")));
}

TEST_F(Hostile, NulBytesAreWhiteSpace) {
  const std::string raw = std::string("where\0is\0my\0order", 17);
  expect_one_label(router("classify -f " + quote(write("nul.txt", raw))), "NUL bytes");
  // NUL is white space to the tokenizer: the same tokens as with spaces.
  EXPECT_EQ(tiny().encode(raw), tiny().encode("where is my order"));
  // Only NULs: nothing to classify.
  const auto only = router("classify -f " + quote(write("nuls.txt", std::string(64, '\0'))));
  EXPECT_EQ(only.code, 3) << only.err;
  // Escaped in JSON, labelled, and written back escaped.
  const std::string in = write("nul.jsonl", "{\"text\": \"cancel\\u0000my order\"}\n");
  const auto r = router("batch " + quote(in));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cancel\\u0000my order"), std::string::npos) << r.out;
}

TEST_F(Hostile, OnlyWhiteSpaceIsAnInputError) {
  // ASCII, and Unicode spaces (no-break, ideographic, line separator) with a zero-width space.
  for (const std::string text : {" \t\r\n\f\v ", "\xC2\xA0\xE3\x80\x80\xE2\x80\xA8\xE2\x80\x8B"}) {
    const auto r = router("classify -f " + quote(write("ws.txt", text)));
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_THROW(tiny().encode(text), router::InputError);
    const std::string in = write("ws.jsonl", ojson{{"text", text}}.dump() + "\n");
    const auto b = router("batch --on-error fail " + quote(in));
    EXPECT_EQ(b.code, 3) << b.err;
    EXPECT_NE(b.err.find(in + ":1: \"text\" is empty"), std::string::npos) << b.err;
  }
  // `--lines` skips blank lines; a file of nothing else has no email at all.
  const auto lines = router("classify --lines -f " + quote(write("blank.txt", "\n  \n\t\n")));
  EXPECT_EQ(lines.code, 3) << lines.err;
}

TEST_F(Hostile, OnlyEmojiIsClassifiedThroughBytePieces) {
  const std::string emoji =
      "\xF0\x9F\x8E\x82\xF0\x9F\x8E\x89\xF0\x9F\x98\x80\xF0\x9F\x91\x8D"
      "\xF0\x9F\x8F\xBD\xE2\x9D\xA4\xEF\xB8\x8F";  // cake party grin thumb+tone heart
  expect_one_label(router("classify " + quote(emoji)), "emoji");
  const auto ids = tiny().encode(emoji);
  EXPECT_FALSE(ids.empty());
  for (int32_t id : ids) EXPECT_NE(id, router::kUnkId);  // byte fallback: never [UNK]
}

// ---- Size ------------------------------------------------------------------------------------

// The rule: the whole email is normalised and pre-tokenised (single passes, linear time), only
// its first max_len + 1 words become subword ids (each word is at least one), enough to know
// whether it was cut, and only the first max_len ids go through the model, so attention never
// sees more than max_len.
TEST_F(Hostile, TenMegabyteEmailIsCutToMaxLenWithAWarning) {
  const std::string email = long_email(10 << 20);
  const auto start = std::chrono::steady_clock::now();
  bool truncated = false;
  const auto ids = tiny().encode(email, &truncated);
  RecordProperty("encode_10mb_ms", std::to_string(std::chrono::duration<double, std::milli>(
                                                      std::chrono::steady_clock::now() - start)
                                                      .count()));
  EXPECT_TRUE(truncated);
  EXPECT_EQ(static_cast<int>(ids.size()), tiny().config().max_len);
  EXPECT_EQ(ids, tiny().encode(email.substr(0, 4096)));  // the first max_len tokens

  const auto r = router("classify -f " + quote(write("big.txt", email)));
  expect_one_label(r, "10 MB email");
  EXPECT_NE(r.err.find("1 email(s) longer than max_len = 32 tokens: only the first 32 were used"),
            std::string::npos)
      << r.err;
}

TEST_F(Hostile, OneMegabyteLineAmongShortOnes) {
  std::string file = "where is my order\n" + long_email(1 << 20);
  std::replace(file.begin() + 18, file.end(), '\n', ' ');  // the long email on one line
  file += "\nplease cancel my order\n";
  const auto r = router("classify --lines -f " + quote(write("lines.txt", file)));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;
  // One summary for the run, as batch gives, not one warning per email.
  EXPECT_NE(r.err.find("1 email(s) longer than max_len"), std::string::npos) << r.err;
  // The same email as one JSON Lines record between two short ones.
  const std::string email = long_email(1 << 20);
  const std::string in = write("big.jsonl", ojson{{"id", 1}, {"text", "thanks"}}.dump() + "\n" +
                                                ojson{{"id", 2}, {"text", email}}.dump() + "\n" +
                                                ojson{{"id", 3}, {"text", "cancel"}}.dump() + "\n");
  const auto b = router("batch " + quote(in));
  ASSERT_EQ(b.code, 0) << b.err;
  const auto got = parse_jsonl(b.out);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1]["text"].get<std::string>(), email);
  EXPECT_TRUE(got[1].contains("prediction"));
  EXPECT_NE(b.err.find("1 email(s) longer than max_len = 32 tokens"), std::string::npos) << b.err;
}

// An HTML part with 100,000 <style> elements: each was once found by lower-casing a copy of the
// rest of the document, 100 GB of copying in all; the search is now in place and linear.
TEST_F(Hostile, HtmlWithManyStyleElementsIsLinear) {
  std::string html;
  for (int i = 0; i < 100000; ++i) html += "<style>p{}</STYLE>x ";
  const std::string raw = "From: a@example.com\nSubject: hi\nContent-Type: text/html\n\n" + html;
  const auto start = std::chrono::steady_clock::now();
  const router::MailText m = router::parse_message(raw, "many_styles.eml");
  RecordProperty("parse_2mb_html_ms", std::to_string(std::chrono::duration<double, std::milli>(
                                                         std::chrono::steady_clock::now() - start)
                                                         .count()));
  EXPECT_EQ(m.text.substr(0, 9), "hi\n\nx x x");
}

// ---- Structure -------------------------------------------------------------------------------

TEST_F(Hostile, DeeplyNestedJsonIsRefusedWithoutRecursingDeep) {
  // 100,000 levels would overflow the stack of a recursive parser; the reader stops at 64.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string in = write("deep.jsonl",
                               "{\"text\": \"cancel my order\"}\n{\"text\": \"x\", "
                               "\"meta\": " +
                                   deep + "}\n");
  const auto r =
      router("batch --on-error fail " + quote(in) + " -o " + quote(tmp_.path("out.jsonl")));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(in + ":2: JSON nested deeper than 64 levels"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp_.path("out.jsonl")));
  // The same inside a JSON array, and as the whole file.
  const std::string arr = write("deep.json", "[{\"text\": \"x\", \"meta\": " + deep + "}]");
  const auto a = router("batch --on-error fail " + quote(arr));
  EXPECT_EQ(a.code, 3) << a.err;
  EXPECT_NE(a.err.find("nested deeper than 64"), std::string::npos) << a.err;
  const auto s = router("batch --on-error fail " + quote(write("deep2.json", deep)));
  EXPECT_EQ(s.code, 3) << s.err;
  // --skip-invalid skips just that record.
  const auto k = router("batch " + quote(in) + " --skip-invalid");
  EXPECT_EQ(k.code, 6) << k.err;
  EXPECT_EQ(parse_jsonl(k.out).size(), 1u);
  // Nesting within the limit is kept as it was.
  const std::string ok = std::string(40, '[') + "7" + std::string(40, ']');
  const auto n =
      router("batch " + quote(write("ok.jsonl", "{\"text\": \"thanks\", \"meta\": " + ok + "}\n")));
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_EQ(parse_jsonl(n.out).at(0)["meta"].dump(), ok);
}

TEST_F(Hostile, HundredThousandRecordsWithOneBadInTheMiddle) {
  constexpr int kRecords = 100000, kBad = 50000;  // the bad record is on line 50,001
  std::string data;
  data.reserve(kRecords * 48);
  for (int i = 0; i < kRecords; ++i) {
    data += i == kBad ? std::string("{\"id\": 50000, \"text\": \"no closing brace\"\n")
                      : ojson{{"id", i}, {"text", i % 2 ? "cancel order" : "thanks"}}.dump() + "\n";
  }
  const std::string in = write("many.jsonl", data);
  const std::string out = tmp_.path("out.jsonl");
  const auto r = router("batch --on-error fail " + quote(in) + " -o " + quote(out));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(in + ":50001: malformed JSON"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));

  const auto k = router("batch " + quote(in) + " -o " + quote(out) + " --skip-invalid");
  EXPECT_EQ(k.code, 6) << k.err;
  EXPECT_NE(k.err.find(in + ":50001"), std::string::npos) << k.err;
  EXPECT_NE(k.err.find("1 record(s) could not be labelled (skipped)"), std::string::npos) << k.err;
  const std::string written = slurp(out);
  std::istringstream lines(written);
  int expect = 0, count = 0;
  for (std::string line; std::getline(lines, line); ++count, ++expect) {
    if (expect == kBad) ++expect;
    const auto rec = ojson::parse(line);
    ASSERT_EQ(rec["id"], expect) << "record " << count;
    ASSERT_TRUE(rec.contains("prediction")) << "record " << count;
  }
  EXPECT_EQ(count, kRecords - 1);
}

}  // namespace
