// `router classify`, `info`, `positions` and `train`, run as a user runs them: the built binary
// in a shell, stdout, stderr and the exit code captured, files in a per-test temporary directory.
// Promises checked here: each input mode and output format, the documented exit code for each
// kind of bad argument or input (README, "Exit codes"), and that stdout carries only results
// while logs and warnings go to stderr. The model is tests/fixtures/models/tiny.json.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using router::test::quote;
using router::test::slurp;
using router::test::spit;
using Result = router::test::CommandResult;

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = s.find(sep, start)) != std::string::npos; start = end + 1) {
    out.push_back(s.substr(start, end - start));
  }
  out.push_back(s.substr(start));
  return out;
}

const std::string kModel = std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/models/tiny.json";
const std::string kTrain =
    std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/models/tiny-train.jsonl";
const std::vector<std::string> kLabels = {"cancel_order", "thanks", "where_is_order"};
// Small and fast: a training run takes a fraction of a second.
const std::string kSmall =
    " --d-model 8 --heads 2 --layers 1 --d-ff 16 --vocab-size 300 --epochs 1 --max-len 16";

// "LABEL\t0.1234" with a known label; returns the score.
double expect_label_line(const std::string& line) {
  static const std::regex kLine(R"(^([a-z_]+)\t([01]\.[0-9]{4})$)");
  std::smatch m;
  EXPECT_TRUE(std::regex_match(line, m, kLine)) << "not LABEL<TAB>0.1234: '" << line << "'";
  if (m.empty()) return -1;
  EXPECT_NE(std::find(kLabels.begin(), kLabels.end(), m[1].str()), kLabels.end()) << line;
  return std::stod(m[2].str());
}

class Cli : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return tmp_.path(name); }
  std::string write(const std::string& name, const std::string& data) const {
    spit(path(name), data);
    return path(name);
  }
  // Runs `router ARGS` (ARGS already quoted) with `input` on stdin.
  Result run(const std::string& args, const std::string& input = "") {
    const std::string in = write("stdin." + std::to_string(runs_++), input);
    return router::test::run_router(args, tmp_.dir(), in);
  }
  Result classify(const std::string& args, const std::string& input = "") {
    return run("classify -m " + quote(kModel) + " " + args, input);
  }
  // A model just trained labels an email with one of the training labels.
  void expect_model_classifies(const std::string& model) {
    const Result c = run("classify -m " + quote(model) + " 'where is my order'");
    ASSERT_EQ(c.code, 0) << c.err;
    expect_label_line(split(c.out, '\n')[0]);
  }
  // A training refused up front: exit 2, `needle` in the message, and no model file.
  void expect_training_refused(const std::string& flags, const std::string& needle) {
    const Result r =
        run("train --train " + quote(kTrain) + " -o " + quote(path("refused.json")) + flags);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("vocabulary"), std::string::npos) << "the tokenizer was trained:\n"
                                                           << r.err;
    EXPECT_FALSE(fs::exists(path("refused.json")));
  }
  // Files in the temporary directory other than the captured streams.
  std::vector<std::string> made_files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(tmp_.dir())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("stdin.", 0) && name.rfind("stdout.", 0) && name.rfind("stderr.", 0)) {
        out.push_back(name);
      }
    }
    return out;
  }

 private:
  router::test::TempDir tmp_{"router_cli"};
  int runs_ = 0;
};

// ---- classify ----------------------------------------------------------------------------------

TEST_F(Cli, ClassifyArgumentsGiveOneLinePerEmail) {
  const Result r = classify("'where is my order' 'please cancel my order' 'thanks, lovely cake'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  for (const auto& line : lines) {
    const double score = expect_label_line(line);
    EXPECT_GE(score, 1.0 / 3 - 1e-4) << "the best of 3 labels has at least 1/3";
  }
  // Each email gets the same answer alone as in a group.
  EXPECT_EQ(classify("'please cancel my order'").out, lines[1] + "\n");
  EXPECT_EQ(r.err, "") << "no logs at the default level for a clean run";
}

// --min-confidence as in batch: below it the label is "needs_review", the confidence and the
// top-k list stay the model's, and a mail rule's label is never sent to review.
TEST_F(Cli, ClassifyMinConfidenceSendsUnsureEmailsToReview) {
  const std::string emails = "'where is my order' 'thanks, lovely cake'";
  const Result plain = classify(emails + " --json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  std::vector<double> conf;
  for (const auto& line : lines_of(plain.out)) {
    conf.push_back(nlohmann::json::parse(line)["confidence"].get<double>());
  }
  ASSERT_EQ(conf.size(), 2u);
  ASSERT_NE(conf[0], conf[1]);
  const double t = (conf[0] + conf[1]) / 2;
  const Result r = classify(emails + " --json --min-confidence " + std::to_string(t));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = lines_of(r.out);
  const auto want = lines_of(plain.out);
  for (size_t i = 0; i < 2; ++i) {
    const auto g = nlohmann::json::parse(got[i]), w = nlohmann::json::parse(want[i]);
    EXPECT_EQ(g["label"], conf[i] < t ? "needs_review" : w["label"].get<std::string>());
    EXPECT_EQ(g["confidence"], w["confidence"]);
    EXPECT_EQ(g["top_k"], w["top_k"]);
  }
  const Result text = classify(emails + " --min-confidence 1");
  EXPECT_EQ(text.out.rfind("needs_review\t", 0), 0u) << text.out;
}

TEST_F(Cli, ClassifyFileDashAndStdinAgree) {
  const std::string email = "please cancel my order\n";
  const std::string want = classify("'please cancel my order'").out;
  ASSERT_FALSE(want.empty());
  const std::string file = write("email.txt", email);
  for (const auto& [args, input] :
       std::vector<std::pair<std::string, std::string>>{{"-f " + quote(file), ""},
                                                        {"--file " + quote(file), ""},
                                                        {"-f -", email},
                                                        {"", email}}) {
    const Result r = classify(args, input);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(r.out, want) << "classify " << args;
  }
  // Without --lines a multi-line input is one email.
  const Result two = classify("", "where is my order\nplease cancel it\n");
  EXPECT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(lines_of(two.out).size(), 1u) << two.out;
}

// Several -f give one line each, in order; "-" as an argument is stdin; an argument that names a
// file is still classified as words, with a warning pointing at -f.
TEST_F(Cli, ClassifySeveralFilesDashAndFileNamedArguments) {
  const std::string a = write("a.txt", "where is my order"), b = write("b.txt", "cancel my order");
  const Result one_each =
      run("classify -m " + quote(kModel) + " -f " + quote(a) + " -f " + quote(b));
  ASSERT_EQ(one_each.code, 0) << one_each.err;
  const Result first = run("classify -m " + quote(kModel) + " -f " + quote(a));
  const Result second = run("classify -m " + quote(kModel) + " -f " + quote(b));
  EXPECT_EQ(one_each.out, first.out + second.out);

  const Result dash =
      run("classify -m " + quote(kModel) + " - 'cancel my order'", "where is my order");
  ASSERT_EQ(dash.code, 0) << dash.err;
  EXPECT_EQ(dash.out, first.out + second.out);

  const Result named = run("classify -m " + quote(kModel) + " " + quote(a));
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_NE(named.err.find("names a file"), std::string::npos) << named.err;
  EXPECT_NE(named.err.find("-f " + a), std::string::npos) << named.err;
}

TEST_F(Cli, ClassifyLinesMakesEveryNonEmptyLineAnEmail) {
  const std::string input = "where is my order\n\n   \nplease cancel my order\r\nthanks a lot";
  const std::string want =
      classify("'where is my order' 'please cancel my order' 'thanks a lot'").out;
  const Result from_stdin = classify("--lines", input);
  ASSERT_EQ(from_stdin.code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, want);
  const Result from_file = classify("--lines -f " + quote(write("in.txt", input)));
  EXPECT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_EQ(from_file.out, want);
}

TEST_F(Cli, ClassifyTopTwoPrintsPairsBestFirst) {
  const Result plain = classify("'where is my order' 'cancel it'");
  const Result r = classify("-k 2 'where is my order' 'cancel it'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = lines_of(r.out), plain_lines = lines_of(plain.out);
  ASSERT_EQ(lines.size(), 2u);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto f = split(lines[i], '\t');
    ASSERT_EQ(f.size(), 4u) << lines[i];
    EXPECT_NE(f[0], f[2]);
    const double first = expect_label_line(f[0] + "\t" + f[1]);
    const double second = expect_label_line(f[2] + "\t" + f[3]);
    EXPECT_GE(first, second) << lines[i];
    EXPECT_EQ(f[0] + "\t" + f[1], plain_lines[i]) << "the best pair is the plain answer";
  }
  // -k larger than the label count prints every label once.
  const Result all = classify("-k 10 'cancel it'");
  ASSERT_EQ(all.code, 0) << all.err;
  const auto f = split(lines_of(all.out).at(0), '\t');
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ((std::set<std::string>{f[0], f[2], f[4]}),
            std::set<std::string>(kLabels.begin(), kLabels.end()));
}

TEST_F(Cli, ClassifyJsonIsOneSortedObjectPerLine) {
  for (const std::string k : {"", "-k 3 ", "-k 1 "}) {
    const Result r = classify(k + "--json 'where is my order' 'thanks, the cake was lovely'");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    for (const auto& line : lines) {
      const json j = json::parse(line);
      ASSERT_TRUE(j.is_object());
      EXPECT_EQ(j.size(), 3u) << line;
      ASSERT_TRUE(j.contains("label") && j.contains("confidence") && j.contains("top_k")) << line;
      const json& top = j["top_k"];
      ASSERT_EQ(top.size(), k == "-k 1 " ? 1u : 3u) << line;
      EXPECT_EQ(j["label"], top[0]["label"]);
      EXPECT_EQ(j["confidence"].get<double>(), top[0]["score"].get<double>());
      double sum = 0;
      for (size_t i = 0; i < top.size(); ++i) {
        sum += top[i]["score"].get<double>();
        if (i > 0) {
          EXPECT_GE(top[i - 1]["score"].get<double>(), top[i]["score"].get<double>());
        }
      }
      if (top.size() == 3) {
        EXPECT_NEAR(sum, 1.0, 1e-5) << line;
      }
    }
  }
}

TEST_F(Cli, ClassifyEmptyEmailExitsThree) {
  for (const std::string args : {"''", "'   '", "'where is my order' ' '"}) {
    const Result r = classify(args);
    EXPECT_EQ(r.code, 3) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << "nothing printed before the error";
    EXPECT_NE(r.err.find(args == "''" || args == "'   '" ? "email 1 is empty" : "email 2 is empty"),
              std::string::npos)
        << r.err;
  }
  const Result empty_stdin = classify("", "");
  EXPECT_EQ(empty_stdin.code, 3) << empty_stdin.err;
  EXPECT_NE(empty_stdin.err.find("stdin"), std::string::npos) << empty_stdin.err;
  const Result blank_lines = classify("--lines", "\n  \n\n");
  EXPECT_EQ(blank_lines.code, 3) << blank_lines.err;
  EXPECT_NE(blank_lines.err.find("no non-empty lines"), std::string::npos) << blank_lines.err;
}

TEST_F(Cli, ClassifyUsageErrorsExitTwo) {
  const std::string file = write("email.txt", "hello\n");
  for (const std::string& args :
       std::vector<std::string>{"-f " + quote(file) + " 'also an argument'", "--bogus x", "-k 0 x",
                                "-k two x", "--threads -1 x"}) {
    const Result r = classify(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_FALSE(r.err.empty()) << args;
  }
  EXPECT_NE(classify("-f " + quote(file) + " x").err.find("not both"), std::string::npos);
  EXPECT_EQ(run("").code, 2) << "a subcommand is required";
  EXPECT_EQ(run("frobnicate").code, 2);
}

// Only the subcommand named on the command line is set up (start-up time); help must not notice.
TEST_F(Cli, HelpListsEverySubcommandWhereverItIsAsked) {
  const std::vector<std::string> all = {"classify",  "batch", "eval",    "train",   "info",
                                        "positions", "demo",  "explain", "tokenize"};
  for (const char* args : {"--help", "-h", "-q --help"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    for (const auto& name : all) {
      EXPECT_NE(r.out.find("  " + name), std::string::npos) << args << ": no " << name;
    }
  }
  for (const char* args : {"classify --help", "--help classify", "-q classify -h"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_NE(r.out.find("--top-k"), std::string::npos) << args << ": " << r.out;
    EXPECT_EQ(r.out.find("--epochs"), std::string::npos) << args << ": train's options shown";
  }
}

// The version and the vector instructions, which decide a trained model's rounding.
// Typos get the nearest command or flag, `router help [SUB]` is --help, and usage errors point at
// the subcommand's own help.
TEST_F(Cli, TyposGetTheNearestNameAndHelpWorks) {
  const Result command = run("clasify 'where is my order'");
  EXPECT_EQ(command.code, 2);
  EXPECT_NE(command.err.find("did you mean 'classify'?"), std::string::npos) << command.err;
  const Result flag = run("train --tarin x.jsonl -o m.json");
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("did you mean --train (not --tarin)?"), std::string::npos) << flag.err;
  EXPECT_NE(flag.err.find("Run 'router train --help'"), std::string::npos) << flag.err;
  const Result epochs = run("train --epoch 30 --train x.jsonl -o m.json");
  EXPECT_NE(epochs.err.find("did you mean --epochs (not --epoch)?"), std::string::npos)
      << epochs.err;
  const Result help = run("help classify");
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_NE(help.out.find("Label emails"), std::string::npos) << help.out;
  const Result top = run("help");
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_NE(top.out.find("classify"), std::string::npos) << top.out;
}

// Errors in the user's terms: the flag names, not the model file's JSON paths; the file and line
// and what was expected, not the JSON parser's internals.
TEST_F(Cli, ErrorsSpeakOfFlagsAndLinesNotInternals) {
  const std::string train = write("t.jsonl",
                                  "{\"text\": \"where is it\", \"label\": \"a\"}\n"
                                  "{\"text\": \"cancel it\", \"label\": \"b\"}\n");
  const Result heads = run("train --train " + quote(train) + " --heads 5 -o m.json");
  EXPECT_EQ(heads.code, 2);
  EXPECT_NE(heads.err.find("--heads 5 does not divide --d-model 128"), std::string::npos)
      << heads.err;
  EXPECT_EQ(heads.err.find("/config/"), std::string::npos) << heads.err;
  EXPECT_EQ(heads.err.find("vocabulary"), std::string::npos) << "checked before any work";
  const Result json = run("batch --on-error fail -m " + quote(kModel) + " " +
                          quote(write("not.jsonl", "i am not json\n")));
  EXPECT_EQ(json.code, 3);
  EXPECT_NE(json.err.find("not.jsonl:1: malformed JSON (column 1"), std::string::npos) << json.err;
  EXPECT_EQ(json.err.find("json.exception"), std::string::npos) << json.err;
}

TEST_F(Cli, VersionNamesTheVectorInstructions) {
  const Result r = run("--version");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], "router 0.1.0");
  static const std::regex kVectors(R"(^vector instructions: .+ \((1|2|4|8|16) floats a vector\)$)");
  EXPECT_TRUE(std::regex_match(lines[1], kVectors)) << lines[1];
}

TEST_F(Cli, GlobalFlagsMayComeBeforeTheSubcommand) {
  for (const char* flags : {"-q", "-v", "-q -v"}) {
    const Result r =
        run(std::string(flags) + " classify -m " + quote(kModel) + " 'where is my order'");
    EXPECT_EQ(r.code, 0) << flags << ": " << r.err;
    ASSERT_EQ(lines_of(r.out).size(), 1u) << flags;
    expect_label_line(lines_of(r.out)[0]);
  }
  EXPECT_EQ(run("-q frobnicate").code, 2);
}

TEST_F(Cli, ClassifyMissingFilesExitFive) {
  // A model or input that cannot be read is an I/O error (5); a readable but bad model is 4.
  const Result no_model = run("classify -m " + quote(path("nope.json")) + " x");
  EXPECT_EQ(no_model.code, 5) << no_model.err;
  EXPECT_NE(no_model.err.find(path("nope.json")), std::string::npos) << no_model.err;
  EXPECT_EQ(no_model.out, "");
  const Result dir_model = run("classify -m " + quote(path("")) + " x");
  EXPECT_EQ(dir_model.code, 5) << dir_model.err;
  const Result no_input = classify("-f " + quote(path("missing.txt")));
  EXPECT_EQ(no_input.code, 5) << no_input.err;
  EXPECT_NE(no_input.err.find("missing.txt"), std::string::npos) << no_input.err;
  const Result not_json = run("classify -m " + quote(write("m.json", "{\"format\": ")) + " x");
  EXPECT_EQ(not_json.code, 4) << not_json.err;
}

TEST_F(Cli, ClassifyLongEmailWarnsAndStillLabels) {
  std::string email;
  for (int i = 0; i < 40; ++i) email += "where is my order number " + std::to_string(i) + " ";
  const Result r = classify(quote(email));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  expect_label_line(lines[0]);
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("longer than max_len = 32 tokens"), std::string::npos) << r.err;
  // -q silences the warning but not the result.
  const Result quiet = run("-q classify -m " + quote(kModel) + " " + quote(email));
  EXPECT_EQ(quiet.out, r.out);
  EXPECT_EQ(quiet.err, "");
}

// A cut email says so in every JSON output, classify --json and batch alike; an email that fits
// has no "truncated" key.
TEST_F(Cli, JsonSaysWhenAnEmailWasCut) {
  std::string email;
  for (int i = 0; i < 40; ++i) email += "where is my order number " + std::to_string(i) + " ";
  const Result cut = run("classify --json -m " + quote(kModel) + " " + quote(email));
  ASSERT_EQ(cut.code, 0) << cut.err;
  EXPECT_EQ(nlohmann::json::parse(cut.out).value("truncated", false), true) << cut.out;
  const Result whole = run("classify --json -m " + quote(kModel) + " 'where is my order'");
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_FALSE(nlohmann::json::parse(whole.out).contains("truncated")) << whole.out;

  const std::string in =
      write("in.jsonl", nlohmann::json{{"text", email}}.dump() + "\n" +
                            nlohmann::json{{"text", "where is it"}}.dump() + "\n");
  const Result batch = run("batch -m " + quote(kModel) + " " + quote(in));
  ASSERT_EQ(batch.code, 0) << batch.err;
  const auto lines = lines_of(batch.out);
  ASSERT_EQ(lines.size(), 2u) << batch.out;
  EXPECT_EQ(nlohmann::json::parse(lines[0])["prediction"].value("truncated", false), true);
  EXPECT_FALSE(nlohmann::json::parse(lines[1])["prediction"].contains("truncated"));
}

TEST_F(Cli, StdoutCarriesOnlyResults) {
  const Result c = run("-vv classify -m " + quote(kModel) + " 'where is my order'");
  ASSERT_EQ(c.code, 0) << c.err;
  ASSERT_EQ(lines_of(c.out).size(), 1u) << c.out;
  expect_label_line(lines_of(c.out)[0]);
  const Result t =
      run("-v train --train " + quote(kTrain) + " -o " + quote(path("m.json")) + kSmall);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(t.out, "") << "train prints nothing to stdout";
  EXPECT_NE(t.err.find("epoch"), std::string::npos) << "progress goes to stderr";
  EXPECT_EQ(t.err.find("\r"), std::string::npos) << "no progress bar when stderr is a file";
}

// ---- info --------------------------------------------------------------------------------------

TEST_F(Cli, InfoShowsConfigLabelsAndParameters) {
  const Result r = run("info -m " + quote(kModel));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string want :
       {"d_model      16\n", "heads        2 x 8\n", "layers       1\n", "d_ff         32\n",
        "max_len      32 tokens\n", "vocabulary   300 pieces",
        "labels       3: cancel_order thanks where_is_order\n", "  total               7043\n"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << "'" << want << "' not in:\n" << r.out;
  }
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, InfoJsonCountsAddUp) {
  const Result r = run("info --json -m " + quote(kModel));
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  for (const char* key : {"config", "labels", "vocab_size", "parameters", "temperature"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["labels"], json(kLabels));
  EXPECT_EQ(j["vocab_size"], 300);
  const json& c = j["config"];
  EXPECT_EQ(c["d_model"], 16);
  EXPECT_EQ(c["n_heads"], 2);
  EXPECT_EQ(c["head_dim"], 8);
  EXPECT_EQ(c["n_layers"], 1);
  EXPECT_EQ(c["d_ff"], 32);
  EXPECT_EQ(c["max_len"], 32);
  const json& p = j["parameters"];
  int64_t parts = 0;
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (it.key() != "total") parts += it->get<int64_t>();
  }
  EXPECT_EQ(p["total"].get<int64_t>(), parts);
  // From the architecture: embedding V*D; per layer qkv 3D*D + out D*D, two layer norms 2*2D,
  // fc1 F*D + F, fc2 D*F + D; final norm 2D; classifier K*D + K.
  const int64_t V = 300, D = 16, F = 32, K = 3;
  EXPECT_EQ(p["total"].get<int64_t>(),
            V * D + 4 * D * D + 4 * D + (F * D + F + D * F + D) + 2 * D + (K * D + K));
}

// ---- positions ---------------------------------------------------------------------------------

TEST_F(Cli, PositionsDefaultReproducesTheCourseTable) {
  const Result r = run("positions");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "pos\tsin0\tcos1\tsin2\tcos3\n"
            "0\t0.000\t1.000\t0.000\t1.000\n"
            "1\t0.841\t0.540\t0.010\t1.000\n"
            "2\t0.909\t-0.416\t0.020\t1.000\n"
            "3\t0.141\t-0.990\t0.030\t1.000\n"
            "44\t0.018\t1.000\t0.426\t0.905\n");
}

TEST_F(Cli, PositionsWidthAndDecimals) {
  const Result r = run("positions --d-model 16 --positions 1 --decimals 4");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[1].rfind("1\t0.8415\t0.5403\t0.3110\t0.9504\t", 0), 0u) << lines[1];
  const auto f = split(lines[1], '\t');
  ASSERT_EQ(f.size(), 17u);
  for (int d = 0; d < 16; ++d) {
    // PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(...), computed naively here.
    const double angle = 1.0 / std::pow(10000.0, (d - d % 2) / 16.0);
    char want[32];
    std::snprintf(want, sizeof want, "%.4f", d % 2 ? std::cos(angle) : std::sin(angle));
    EXPECT_EQ(f[d + 1], want) << "dimension " << d;
  }
  const Result j = run("positions --json --positions 0,44");
  ASSERT_EQ(j.code, 0) << j.err;
  const json table = json::parse(j.out);
  EXPECT_EQ(table["d_model"], 4);
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_EQ(table["rows"][1]["position"], 44);
  EXPECT_NEAR(table["rows"][1]["values"][2].get<double>(), std::sin(0.44), 1e-12);
}

TEST_F(Cli, PositionsBadArgumentsExitTwo) {
  for (const std::string args :
       {"--positions x", "--positions ''", "--positions -1", "--positions 1,,2",
        "--positions 2000000", "--positions 1.5", "--d-model 0", "--decimals 40"}) {
    const Result r = run("positions " + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
}

// ---- train -------------------------------------------------------------------------------------

TEST_F(Cli, TrainWithoutTrainingFileExitsTwo) {
  const Result r = run("train -o " + quote(path("m.json")));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--train"), std::string::npos) << r.err;
  const Result missing =
      run("train --train " + quote(path("none.jsonl")) + " -o " + quote(path("m.json")));
  EXPECT_EQ(missing.code, 5) << "a missing input is an I/O error: " << missing.err;
  EXPECT_NE(missing.err.find("none.jsonl"), std::string::npos) << missing.err;
  const Result overwrite = run("train --train " + quote(kTrain) + " -o " + quote(kTrain));
  EXPECT_EQ(overwrite.code, 2) << overwrite.err;
  EXPECT_NE(overwrite.err.find("would overwrite the input"), std::string::npos) << overwrite.err;
  EXPECT_TRUE(made_files().empty());
}

TEST_F(Cli, TrainMalformedLineExitsThreeNamingFileAndLine) {
  std::string data = slurp(kTrain);
  const auto lines = lines_of(data);
  std::string broken;
  for (size_t i = 0; i < lines.size(); ++i)
    broken += (i == 6 ? "{\"text\": \"oops\", " : lines[i]) + "\n";
  const std::string file = write("bad.jsonl", broken);
  const Result r = run("train --train " + quote(file) + " -o " + quote(path("m.json")) + kSmall);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(file + ":7"), std::string::npos) << r.err;
  EXPECT_EQ(made_files(), std::vector<std::string>{"bad.jsonl"}) << "no model, no temp file";
}

TEST_F(Cli, TrainBadDataExitsThree) {
  std::string two_labels, one_label;
  for (const auto& line : lines_of(slurp(kTrain))) {
    if (line.find("\"thanks\"") == std::string::npos) two_labels += line + "\n";
    if (line.find("\"thanks\"") != std::string::npos) one_label += line + "\n";
  }
  const std::string train2 = write("two.jsonl", two_labels);
  const std::string valid =
      write("valid.jsonl", "{\"text\": \"thanks a lot\", \"label\": \"thanks\"}\n");
  const std::string out = path("m.json");
  struct Case {
    std::string args, phrase;
  };
  for (const Case& c : std::vector<Case>{
           {"--train " + quote(train2) + " --valid " + quote(valid),
            "label 'thanks' does not occur in the training data"},
           {"--train " + quote(write("one.jsonl", one_label)), "needs at least two labels"},
           {"--train " + quote(write("empty.jsonl", "")), "no records"},
           {"--train " + quote(write("notext.jsonl", "{\"label\": \"a\"}\n")), "missing \"text\""},
       }) {
    const Result r = run("train " + c.args + " -o " + quote(out) + kSmall);
    EXPECT_EQ(r.code, 3) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.phrase), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

TEST_F(Cli, TrainMoreLocalHeadsThanHeadsExitsTwoBeforeTraining) {
  expect_training_refused(kSmall + " --local-heads 3",
                          "--local-heads 3: the first layer has 2 heads");
}

TEST_F(Cli, TrainUnwritableOutputFailsBeforeTraining) {
  const Result r = run("-v train --train " + quote(kTrain) + " -o " +
                       quote(path("no/such/dir/m.json")) + kSmall);
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("no/such/dir/m.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("epoch"), std::string::npos) << "training started:\n" << r.err;
  EXPECT_EQ(r.err.find("training on"), std::string::npos) << r.err;
}

TEST_F(Cli, TrainConfigFileAppliesAndFlagsOverrideIt) {
  const std::string config =
      write("options.json",
            R"({"d_model": 8, "heads": 4, "layers": 1, "d_ff": 16, "max_len": 24, "vocab_size": 300,
          "epochs": 1, "seed": 7, "positional": "none"})");
  const std::string out = path("m.json");
  const Result t = run("-q train --train " + quote(kTrain) + " -o " + quote(out) + " --config " +
                       quote(config) + " --heads 2 --seed 9");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(t.out, "");
  const Result info = run("info --json -m " + quote(out));
  ASSERT_EQ(info.code, 0) << info.err;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["config"]["d_model"], 8) << "from the file";
  EXPECT_EQ(j["config"]["max_len"], 24) << "from the file";
  EXPECT_EQ(j["config"]["positional"], "none") << "from the file";
  EXPECT_EQ(j["config"]["n_heads"], 2) << "the flag wins";
  const json& o = j["metadata"]["options"];
  EXPECT_EQ(o["n_heads"], 2);
  EXPECT_EQ(o["seed"], 9) << "the flag wins";
  EXPECT_EQ(o["epochs"], 1) << "from the file";
  EXPECT_EQ(j["metadata"]["seed"], 9);

  const Result unknown = run("train --train " + quote(kTrain) + " -o " + quote(path("u.json")) +
                             " --config " + quote(write("bad.json", R"({"depth": 3})")));
  EXPECT_EQ(unknown.code, 3) << unknown.err;
  EXPECT_NE(unknown.err.find("/depth: unknown option"), std::string::npos) << unknown.err;
  const Result out_of_range =
      run("train --train " + quote(kTrain) + " -o " + quote(path("r.json")) + " --config " +
          quote(write("range.json", R"({"heads": 0})")));
  EXPECT_EQ(out_of_range.code, 3) << out_of_range.err;
  EXPECT_NE(out_of_range.err.find("/heads"), std::string::npos) << out_of_range.err;
  EXPECT_FALSE(fs::exists(path("u.json")) || fs::exists(path("r.json")));
}

TEST_F(Cli, TrainPoolingIsRecordedAndUsed) {
  for (const std::string pooling : {"max", "attention"}) {
    SCOPED_TRACE(pooling);
    const std::string out = path(pooling + ".json");
    const Result t = run("-q train --train " + quote(kTrain) + " -o " + quote(out) + kSmall +
                         " --pooling " + pooling);
    ASSERT_EQ(t.code, 0) << t.err;
    const Result info = run("info --json -m " + quote(out));
    ASSERT_EQ(info.code, 0) << info.err;
    const json j = json::parse(info.out);
    EXPECT_EQ(j["config"]["pooling"], pooling);
    EXPECT_EQ(j["metadata"]["options"]["pooling"], pooling);
    const json file = json::parse(slurp(out));
    EXPECT_EQ(file["config"]["pooling"], pooling);
    // Only attention pooling has a query, and training has moved it from 0 (the mean).
    EXPECT_EQ(file["tensors"].contains("pool.query"), pooling == "attention");
    if (pooling == "attention") {
      double largest = 0;
      for (double v : file["tensors"]["pool.query"]["data"])
        largest = std::max(largest, std::abs(v));
      EXPECT_GT(largest, 0.0);
    }
    const Result text = run("info -m " + quote(out));
    EXPECT_NE(text.out.find("encoder, " + pooling + " pooling"), std::string::npos) << text.out;
    expect_model_classifies(out);
  }
  expect_training_refused(kSmall + " --pooling sum", "--pooling");
}

TEST_F(Cli, TrainConfigFromAModelsMetadataRetrainsItExactly) {
  const std::string first = path("first.json");
  const Result a = run("-q train --train " + quote(kTrain) + " -o " + quote(first) + kSmall +
                       " --seed 5 --lr 0.01 --token-dropout 0.1 --ema 0.9 --pretrain-epochs 1");
  ASSERT_EQ(a.code, 0) << a.err;
  // metadata.options spells heads and layers as the config does: n_heads, n_layers.
  const json options = json::parse(slurp(first))["metadata"]["options"];
  ASSERT_TRUE(options.contains("n_heads") && options.contains("n_layers")) << options.dump();
  const std::string recipe = write("recipe.json", options.dump());
  const std::string second = path("second.json");
  const Result b = run("-q train --train " + quote(kTrain) + " -o " + quote(second) + " --config " +
                       quote(recipe) + " --threads 1");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(slurp(second), slurp(first)) << "the recorded options are the whole recipe";

  json both = options;
  both["heads"] = 2;
  const Result twice = run("train --train " + quote(kTrain) + " -o " + quote(path("t.json")) +
                           " --config " + quote(write("both.json", both.dump())));
  EXPECT_EQ(twice.code, 3) << twice.err;
  EXPECT_NE(twice.err.find("/n_heads and /heads"), std::string::npos) << twice.err;
  EXPECT_FALSE(fs::exists(path("t.json")));
}

// Pretraining is said in the log with how well the masked tokens were guessed, is recorded, and
// is refused with --time-budget, which plans the labelled epochs only.
TEST_F(Cli, TrainPretrainEpochs) {
  const std::string out = path("p.json");
  const Result t =
      run("train --train " + quote(kTrain) + " -o " + quote(out) + kSmall + " --pretrain-epochs 2");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.err.find("pretraining epoch 2/2: masked-token loss"), std::string::npos) << t.err;
  EXPECT_EQ(json::parse(slurp(out))["metadata"]["options"]["pretrain_epochs"], 2);
  expect_model_classifies(out);
  expect_training_refused(kSmall + " --pretrain-epochs 1 --time-budget 60",
                          "--pretrain-epochs and --time-budget");
}

// --pair-batches is recorded, and refused before any training when no record has a pair id.
TEST_F(Cli, TrainPairBatches) {
  std::string paired;
  for (const std::string& line : split(slurp(kTrain), '\n')) {
    if (line.empty()) continue;
    json record = json::parse(line);
    record["pair"] = std::to_string(paired.size() % 7);
    paired += record.dump() + "\n";
  }
  const std::string out = path("p.json");
  const Result t = run("train --train " + quote(write("paired.jsonl", paired)) + " -o " +
                       quote(out) + kSmall + " --pair-batches");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(json::parse(slurp(out))["metadata"]["options"]["pair_batches"], true);
  expect_model_classifies(out);
  const Result r = run("train --train " + quote(kTrain) + " -o " + quote(path("r.json")) + kSmall +
                       " --pair-batches");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("--pair-batches: no training record has a pair id"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("vocabulary"), std::string::npos) << "the tokenizer was trained";
  EXPECT_FALSE(fs::exists(path("r.json")));
}

}  // namespace
