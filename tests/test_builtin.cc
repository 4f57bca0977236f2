// The built-in models and the demo: the packed models predict exactly as their JSON files, and
// `router demo --json` tells the fee-vs-cake story: without positions the two emails get the same
// label and (to float rounding) the same probabilities; with positions, different labels. The
// README shows the demo's output as it is printed.
#include <cstdio>
#include <memory>
#include <regex>
#include <sstream>

#include "input/dataset.h"
#include "model/builtin_model.h"
#include "model/json_format.h"
#include "test_support.h"

namespace router {
namespace {

std::string run_stdout(const std::string& command, int& code) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  code = WEXITSTATUS(pclose(p));
  return out;
}

TEST(Builtin, PackedModelsPredictLikeTheirJsonFiles) {
  for (const char* name : {"crumb", "crumb-nopos"}) {
    auto packed = builtin_model(name);
    if (!packed) GTEST_SKIP() << "this build has no built-in models";
    const Model json = load_model(test::source_path(std::string("models/") + name + ".json"));
    EXPECT_EQ(model_to_json(*packed), model_to_json(json)) << name;
    for (const char* text : {"Refund the delivery fee, not the cake.", "where is my order??"}) {
      EXPECT_EQ(packed->predict(text).probs, json.predict(text).probs) << name << ": " << text;
    }
  }
}

// The built-in models carry the ids of their data's words (known words): every Crumb email,
// including the test split's held-out words, must encode exactly as the model's SentencePiece
// model encodes it, and an email of known words must not need that model parsed at all.
TEST(Builtin, KnownWordsEncodeLikeTheTokenizer) {
  auto packed = builtin_model("crumb");
  if (!packed) GTEST_SKIP() << "this build has no built-in models";
  EXPECT_EQ(packed->predict("Refund the delivery fee, not the cake.").label, 1);
  EXPECT_FALSE(packed->tokenizer().parsed()) << "start-up would pay for parsing the tokenizer";
  const Tokenizer parsed =
      Tokenizer::from_serialized(std::string(packed->tokenizer().serialized()), "crumb");
  for (const char* split : {"train", "valid", "test"}) {
    for (const auto& e :
         read_examples(test::source_path(std::string("data/crumb/") + split + ".jsonl"))) {
      ASSERT_EQ(packed->tokenizer().encode(e.text), parsed.encode(e.text)) << e.where;
    }
  }
}

TEST(Builtin, DemoTellsTheSwapStory) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  int code = -1;
  const std::string out = run_stdout(std::string(ROUTER_BINARY) + " demo --json", code);
  ASSERT_EQ(code, 0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["same_label_without_positions"].get<bool>());
  EXPECT_LT(j["max_prob_diff_without_positions"].get<double>(), 1e-5);
  EXPECT_TRUE(j["different_labels_with_positions"].get<bool>());
  EXPECT_EQ(j["with_positions"][0]["label"], "refund_delivery_fee");
  EXPECT_EQ(j["with_positions"][1]["label"], "refund_item");
  const auto& perm = j["permutation_test"];
  EXPECT_LT(perm["max_diff_without_positions"].get<double>(), 1e-4);
  EXPECT_GT(perm["max_diff_with_positions"].get<double>(), 1e-2);
  // The human-readable form says the same.
  const std::string text = run_stdout(std::string(ROUTER_BINARY) + " demo", code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("they get different labels"), std::string::npos) << text;
}

// A word outside the known words is encoded with a model cut down to its pieces: one email
// never pays for parsing all 4,000 (piece_subset.h), and every Crumb email, with no known words
// at all, encodes as the parsed model encodes it.
TEST(Builtin, UnknownWordsNeedNoWholeModel) {
  auto packed = builtin_model("crumb");
  if (!packed) GTEST_SKIP() << "this build has no built-in models";
  const std::string serialized(packed->tokenizer().serialized());
  const Tokenizer parsed = Tokenizer::from_serialized(serialized, "crumb");
  const std::string email = "Hi, this is Zyxwvut Qwertyuiop; order CRB-45217 never reached Aundh.";
  EXPECT_EQ(packed->tokenizer().encode(email), parsed.encode(email));
  EXPECT_FALSE(packed->tokenizer().parsed());
  const int vocab = packed->tokenizer().vocab_size();
  for (const auto& e : read_examples(test::source_path("data/crumb/test.jsonl"))) {
    const Tokenizer fresh = Tokenizer::from_trusted(serialized, vocab, KnownWords{});
    ASSERT_EQ(fresh.encode(e.text), parsed.encode(e.text)) << e.where;
  }
}

// The README shows `router demo`'s output; it must be what the command prints. The two tiny
// differences (0 to 1e-7: float rounding) depend on the vector instructions of the build, so
// every number written in scientific notation, 0.0e+00 included, is compared by its form only.
std::string mask_scientific(const std::string& text) {
  static const std::regex kScientific(R"([0-9]\.[0-9]+e[-+][0-9]+)");
  return std::regex_replace(text, kScientific, "<tiny>");
}

TEST(Builtin, ReadmeShowsWhatDemoPrints) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  const std::string readme = test::slurp(test::source_path("README.md"));
  const std::string intro = "`router demo` shows the story:\n\n```\n";
  const size_t start = readme.find(intro);
  ASSERT_NE(start, std::string::npos) << "README.md no longer introduces the demo's output";
  const size_t begin = start + intro.size();
  const size_t end = readme.find("```", begin);
  ASSERT_NE(end, std::string::npos);
  int code = -1;
  const std::string printed = run_stdout(std::string(ROUTER_BINARY) + " demo", code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(mask_scientific(readme.substr(begin, end - begin)), mask_scientific(printed));
}

TEST(Builtin, DefaultModelNeedsNoFlag) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  int code = -1;
  const std::string out = run_stdout(
      "echo 'Refund the cake, not the delivery fee.' | " + std::string(ROUTER_BINARY) + " classify",
      code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.substr(0, out.find('\t')), "refund_item") << out;
}

// Built-in models by name with -m, and listed by info --list; a file of that name still wins.
TEST(Builtin, ModelsByName) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  int code = -1;
  const std::string pair = test::quote("Refund the delivery fee, not the cake.") + " " +
                           test::quote("Refund the cake, not the delivery fee.");
  const std::string nopos =
      run_stdout(std::string(ROUTER_BINARY) + " classify -m crumb-nopos " + pair, code);
  ASSERT_EQ(code, 0);
  const size_t nl = nopos.find('\n');
  EXPECT_EQ(nopos.substr(0, nl + 1), nopos.substr(nl + 1)) << "no positions, no order: " << nopos;
  const std::string with =
      run_stdout(std::string(ROUTER_BINARY) + " classify -m crumb " + pair, code);
  EXPECT_EQ(with, run_stdout(std::string(ROUTER_BINARY) + " classify " + pair, code));
  const std::string second = with.substr(with.find('\n') + 1);
  EXPECT_NE(with.substr(0, with.find('\t')), second.substr(0, second.find('\t'))) << with;
  const std::string list = run_stdout(std::string(ROUTER_BINARY) + " info --list", code);
  ASSERT_EQ(code, 0);
  EXPECT_NE(list.find("crumb "), std::string::npos) << list;
  EXPECT_NE(list.find("crumb-nopos "), std::string::npos) << list;
}

// The ninth label: mail that is not for the desk (written for this test, not taken from the
// hand-written corpus) gets `other`; requests keep their labels.
TEST(Builtin, MailThatIsNotForTheDeskIsOther) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Hi", "other"},
      {"I am out of the office until Monday 8 December with no access to email. For anything "
       "urgent please call my colleague Nikhil.",
       "other"},
      {"Congratulations!! Your email has been selected for a cash prize of USD 500,000. Send your "
       "bank details to claim it today.",
       "other"},
      {"asdf jkl qwer zxcv", "other"},
      {"Thank you for contacting us. Your ticket #88213 has been received and an agent will reply "
       "within 48 hours.",
       "other"},
      {"Where is my order CR-52011? It was due at 5.", "order_status"},
      {"Refund the delivery fee, not the cake.", "refund_delivery_fee"},
  };
  std::string args;
  for (const auto& c : cases) (args += ' ') += test::quote(c.first);
  int code = -1;
  const std::string out = run_stdout(std::string(ROUTER_BINARY) + " classify" + args, code);
  ASSERT_EQ(code, 0);
  std::istringstream lines(out);
  for (const auto& c : cases) {
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line.substr(0, line.find('\t')), c.second) << c.first;
  }
}

// Header rules name themselves and skip the model; --no-header-rules lets the model decide.
TEST(Builtin, AutomaticMailIsOtherByItsHeaders) {
  if (!builtin_model("crumb")) GTEST_SKIP() << "this build has no built-in models";
  test::TempDir tmp;
  const std::string eml = tmp.path("auto.eml");
  test::spit(eml,
             "From: orders@crumb.in\nAuto-Submitted: auto-replied\nSubject: Re: refund\n\n"
             "Please refund the cake, not the delivery fee.\n");
  int code = -1;
  const std::string ruled =
      run_stdout(std::string(ROUTER_BINARY) + " classify --json -f " + test::quote(eml), code);
  ASSERT_EQ(code, 0);
  const auto j = nlohmann::json::parse(ruled);
  EXPECT_EQ(j["label"], "other");
  EXPECT_EQ(j["rule"], "Auto-Submitted: auto-replied");
  const std::string modelled = run_stdout(
      std::string(ROUTER_BINARY) + " classify --json --no-header-rules -f " + test::quote(eml),
      code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(nlohmann::json::parse(modelled)["label"], "refund_item") << modelled;
  EXPECT_FALSE(nlohmann::json::parse(modelled).contains("rule"));
  const std::string filtered =
      run_stdout(std::string(ROUTER_BINARY) + " filter < " + test::quote(eml), code);
  ASSERT_EQ(code, 0);
  EXPECT_NE(filtered.find("X-Router-Label: other\nX-Router-Confidence: 1.0000\n"
                          "X-Router-Rule: Auto-Submitted: auto-replied\n"),
            std::string::npos)
      << filtered;
  // A photo with nothing but an attachment: `other`, because there are no words at all.
  const std::string photo = tmp.path("photo.eml");
  test::spit(photo, "From: a@b.c\nContent-Type: image/png\n\niVBORw0KGgo=\n");
  const std::string none =
      run_stdout(std::string(ROUTER_BINARY) + " classify --json -f " + test::quote(photo), code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(nlohmann::json::parse(none)["rule"], "no text");
}

}  // namespace
}  // namespace router
