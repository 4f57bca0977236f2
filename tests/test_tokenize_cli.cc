// `router tokenize`, run as a user runs it: the built binary with the built-in model. Checked:
// one line per record in input order, ids identical to the library's Model::encode (what batch
// and classify feed the encoder), stdin and JSON arrays read like files, --pieces, truncation to
// max_len, and exit code 3 naming the line for an empty text.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/builtin_model.h"
#include "test_support.h"

namespace {

using router::test::quote;
using router::test::spit;
using Result = router::test::CommandResult;
using nlohmann::json;

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

const std::vector<std::string> kTexts = {
    "Refund the delivery fee, not the cake.", "Refund the cake, not the delivery fee.",
    "where is my order??", "Héllo — can I change the address to Koregaon Park?"};

class TokenizeCli : public ::testing::Test {
 protected:
  router::test::TempDir tmp_;
  Result run(const std::string& args, const std::string& stdin_file = "/dev/null") {
    return router::test::run_router(args, tmp_.dir(), stdin_file);
  }
  std::string write_jsonl(const std::vector<std::string>& texts) {
    std::string s;
    for (size_t i = 0; i < texts.size(); ++i)
      s += json{{"id", i}, {"text", texts[i]}}.dump() + "\n";
    const std::string path = tmp_.path("in.jsonl");
    spit(path, s);
    return path;
  }
};

TEST_F(TokenizeCli, IdsAreThoseTheModelSees) {
  const auto model = router::builtin_model();
  ASSERT_TRUE(model.has_value());
  const Result r = run("tokenize " + quote(write_jsonl(kTexts)));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), kTexts.size());
  for (size_t i = 0; i < kTexts.size(); ++i) {
    EXPECT_EQ(lines[i].at("ids").get<std::vector<int32_t>>(), model->encode(kTexts[i]))
        << "record " << i;
    EXPECT_FALSE(lines[i].contains("truncated"));
  }
  // The swap pair: the same ids, in a different order.
  auto a = lines[0]["ids"].get<std::vector<int>>(), b = lines[1]["ids"].get<std::vector<int>>();
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST_F(TokenizeCli, StdinAndJsonArrayGiveTheSameLines) {
  const std::string path = write_jsonl(kTexts);
  const Result file = run("tokenize " + quote(path));
  const Result in = run("tokenize -", path);
  json array = json::array();
  for (const auto& t : kTexts) array.push_back({{"text", t}});
  spit(tmp_.path("in.json"), array.dump(1));
  const Result arr = run("tokenize " + quote(tmp_.path("in.json")));
  ASSERT_EQ(file.code, 0) << file.err;
  EXPECT_EQ(in.code, 0) << in.err;
  EXPECT_EQ(arr.code, 0) << arr.err;
  EXPECT_EQ(in.out, file.out);
  EXPECT_EQ(arr.out, file.out);
}

TEST_F(TokenizeCli, PiecesMatchIds) {
  const auto model = router::builtin_model();
  const Result r = run("tokenize --pieces " + quote(write_jsonl(kTexts)));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& line : json_lines(r.out)) {
    const auto ids = line.at("ids").get<std::vector<int>>();
    const auto pieces = line.at("pieces").get<std::vector<std::string>>();
    ASSERT_EQ(ids.size(), pieces.size());
    for (size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(model->tokenizer().vocab()[ids[i]], pieces[i]);
  }
}

TEST_F(TokenizeCli, LongTextIsCutToMaxLen) {
  const auto model = router::builtin_model();
  std::string long_text;
  for (int i = 0; i < 200; ++i) long_text += "please refund the delivery fee ";
  const Result r = run("tokenize " + quote(write_jsonl({long_text})));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["ids"].size(), static_cast<size_t>(model->config().max_len));
  EXPECT_EQ(lines[0].value("truncated", false), true);
}

TEST_F(TokenizeCli, EmptyTextExitsThreeNamingTheLine) {
  const Result r = run("tokenize " + quote(write_jsonl({"fine", "  \n ", "also fine"})));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("in.jsonl:2:"), std::string::npos) << r.err;
}

TEST_F(TokenizeCli, OutputFileAppearsWhole) {
  const std::string out = tmp_.path("ids.jsonl");
  const Result r = run("tokenize " + quote(write_jsonl(kTexts)) + " -o " + quote(out));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(json_lines(router::test::slurp(out)).size(), kTexts.size());
}

}  // namespace
