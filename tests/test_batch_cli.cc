// `router batch` and `router eval`, run as a user runs them: the built binary on files in a
// temporary directory, checking output bytes, exit codes and messages. A tiny model is trained
// once per process from a synthetic three-label data set; the tests reason about what it
// predicts by reading `router batch` output, never by assuming the model is good.
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using router::test::parse_jsonl;
using router::test::quote;
using router::test::slurp;
using router::test::spit;
using Result = router::test::CommandResult;

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

using Tmp = router::test::TempDir;

// Runs `router ARGS` through the shell (ARGS already quoted), capturing both streams.
Result router(const Tmp& tmp, const std::string& args, const std::string& stdin_file = "") {
  return router::test::run_router(args, tmp.dir(), stdin_file.empty() ? "/dev/null" : stdin_file);
}

// Three intents, numbers and a few wordings varied: ~60 lines.
std::vector<std::pair<std::string, std::string>> synthetic(int per_label) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> templates = {
      {"order_status",
       {"where is my order {}", "has order {} shipped yet", "track my package {} please"}},
      {"cancel", {"cancel order {} please", "please cancel my order {}", "stop order {} now"}},
      {"thanks", {"thanks for the cake {}", "thank you so much for order {}", "many thanks {}"}}};
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < per_label; ++i) {
    for (const auto& [label, forms] : templates) {
      std::string text = forms[i % forms.size()];
      text.replace(text.find("{}"), 2, std::to_string(i * 7 + 3));
      out.emplace_back(text, label);
    }
  }
  return out;
}

std::string jsonl(const std::vector<ojson>& records) {
  std::string s;
  for (const auto& r : records) s += r.dump() + "\n";
  return s;
}

// The model and its training data, made once per process (SetUpTestSuite of both suites).
struct Shared {
  Tmp tmp;
  std::string model, train;
  std::vector<std::pair<std::string, std::string>> data;
};

Shared& shared() {
  static Shared s;  // destroyed at exit, which removes its directory
  static const bool trained = [] {
    s.data = synthetic(20);
    std::vector<ojson> records;
    for (const auto& [text, label] : s.data) records.push_back({{"text", text}, {"label", label}});
    s.train = s.tmp.path("train.jsonl");
    spit(s.train, jsonl(records));
    s.model = s.tmp.path("m.json");
    const Result r = router(s.tmp, "-q train --train " + quote(s.train) + " -o " + quote(s.model) +
                                       " --epochs 2 --vocab-size 300 --d-model 16 --heads 2"
                                       " --layers 1 --d-ff 32");
    if (r.code != 0) ADD_FAILURE() << "router train failed (" << r.code << "): " << r.err;
    return r.code == 0;
  }();
  (void)trained;
  return s;
}

class BatchCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { shared(); }
  Tmp tmp_;
  const std::string& model() { return shared().model; }
  std::string m() { return " -m " + quote(model()); }
  std::string write(const std::string& name, const std::string& data) {
    spit(tmp_.path(name), data);
    return tmp_.path(name);
  }
  // `n` records with an id, the text and an extra field, in that order.
  std::string records(int n) {
    const auto& data = shared().data;
    std::string s;
    for (int i = 0; i < n; ++i) {
      s += ojson{{"id", i}, {"text", data[i % data.size()].first}, {"meta", {{"z", 1}, {"a", 2}}}}
               .dump() +
           "\n";
    }
    return s;
  }
};

TEST_F(BatchCli, JsonLinesKeepsFieldsInOrderAndAppendsPrediction) {
  const std::string in = write("in.jsonl", records(30));
  const std::string out = tmp_.path("out.jsonl");
  const Result r = router(tmp_, "batch " + quote(in) + " -o " + quote(out) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const auto got = parse_jsonl(slurp(out));
  const auto want = parse_jsonl(records(30));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    std::vector<std::string> keys;
    for (auto it = got[i].begin(); it != got[i].end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "text", "meta", "prediction"}));
    ojson without = got[i];
    without.erase("prediction");
    EXPECT_EQ(without.dump(), want[i].dump()) << "record " << i << " changed";
    const ojson& p = got[i]["prediction"];
    EXPECT_TRUE(p["label"].is_string());
    EXPECT_EQ(p["top_k"].size(), 3u);  // the default -k
    EXPECT_EQ(p["top_k"][0]["label"], p["label"]);
    EXPECT_EQ(p["top_k"][0]["score"], p["confidence"]);
  }
}

// Significant digits of a JSON number as printed.
int significant_digits(std::string s) {
  s = s.substr(0, s.find_first_of("eE"));
  std::string digits;
  for (char c : s) {
    if (c >= '0' && c <= '9') digits += c;
  }
  digits.erase(0, digits.find_first_not_of('0'));
  return static_cast<int>(digits.size());
}

TEST_F(BatchCli, ProbabilitiesArePrintedAsShortFloats) {
  const std::string in = write("in.jsonl", records(20));
  const Result r = router(tmp_, "batch " + quote(in) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  // The printed text itself: parsing and dumping again would go through nlohmann's printer.
  const std::regex number("\"(confidence|score)\":([-0-9.eE+]+)");
  int seen = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), number);
       it != std::sregex_iterator(); ++it, ++seen) {
    const std::string text = (*it)[2];
    // A float needs at most 9 significant digits; a double printed in full needs 17.
    EXPECT_LE(significant_digits(text), 9) << text;
    // And it is the shortest: the float's own shortest decimal.
    const float f = std::stof(text);
    char buf[32];
    EXPECT_EQ(text, std::string(buf, std::to_chars(buf, buf + sizeof buf, f).ptr));
  }
  EXPECT_EQ(seen, 20 * 4) << "a confidence and three scores per record";
}

TEST_F(BatchCli, JsonArrayInArrayOut) {
  const auto recs = parse_jsonl(records(5));
  const std::string in = write("in.json", ojson(recs).dump(2));
  const std::string out = tmp_.path("out.json");
  const Result r = router(tmp_, "batch " + quote(in) + " -o " + quote(out) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(out);
  ASSERT_EQ(text.substr(0, 2), "[\n");
  ASSERT_EQ(text.substr(text.size() - 3), "\n]\n");
  const ojson got = ojson::parse(text);
  ASSERT_TRUE(got.is_array());
  ASSERT_EQ(got.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(got[i]["id"], i);
    EXPECT_TRUE(got[i].contains("prediction"));
  }
  // An empty array gives an empty array.
  const Result empty = router(tmp_, "batch " + quote(write("empty.json", "[]")) + m());
  ASSERT_EQ(empty.code, 0) << empty.err;
  EXPECT_EQ(empty.out, "[]\n");
}

TEST_F(BatchCli, StdinToStdoutEqualsFileToFile) {
  const std::string in = write("in.jsonl", records(40));
  const std::string out = tmp_.path("out.jsonl");
  ASSERT_EQ(router(tmp_, "batch " + quote(in) + " -o " + quote(out) + m()).code, 0);
  const Result r = router(tmp_, "batch -" + m(), in);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(out));
}

TEST_F(BatchCli, TopKSetsHowManyLabels) {
  const std::string in = write("in.jsonl", records(6));
  for (int k : {1, 2, 3, 50}) {
    const Result r = router(tmp_, "batch " + quote(in) + " -k " + std::to_string(k) + m());
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& rec : parse_jsonl(r.out)) {
      const ojson& top = rec["prediction"]["top_k"];
      ASSERT_EQ(top.size(), static_cast<size_t>(std::min(k, 3)));  // the model has 3 labels
      for (size_t j = 1; j < top.size(); ++j) {
        EXPECT_GE(top[j - 1]["score"].get<double>(), top[j]["score"].get<double>());
      }
    }
  }
}

TEST_F(BatchCli, MinConfidenceGivesNeedsReview) {
  const std::string in = write("in.jsonl", records(30));
  const Result plain = router(tmp_, "batch " + quote(in) + m());
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto base = parse_jsonl(plain.out);
  // A threshold between the lowest and highest confidence splits the records.
  std::vector<double> conf;
  for (const auto& rec : base) conf.push_back(rec["prediction"]["confidence"].get<double>());
  const double lo = *std::min_element(conf.begin(), conf.end());
  const double hi = *std::max_element(conf.begin(), conf.end());
  ASSERT_LT(lo, hi) << "the test model gives every record the same confidence";
  const double t = (lo + hi) / 2;
  const Result r =
      router(tmp_, "batch " + quote(in) + " --min-confidence " + std::to_string(t) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = parse_jsonl(r.out);
  ASSERT_EQ(got.size(), base.size());
  int review = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const ojson& p = got[i]["prediction"];
    if (conf[i] < t) {
      ++review;
      EXPECT_EQ(p["label"], "needs_review");
      EXPECT_EQ(p["top_k"][0]["label"], base[i]["prediction"]["label"]);  // the model's labels
    } else {
      EXPECT_EQ(p["label"], base[i]["prediction"]["label"]);
    }
    EXPECT_EQ(p["confidence"], base[i]["prediction"]["confidence"]);
  }
  EXPECT_GT(review, 0);
  EXPECT_LT(review, static_cast<int>(got.size()));
}

TEST_F(BatchCli, OutputIsIdenticalForOneAndTwoThreads) {
  // More than one 1,024-record chunk.
  const std::string in = write("in.jsonl", records(2500));
  const Result one = router(tmp_, "batch " + quote(in) + " --threads 1" + m());
  const Result two = router(tmp_, "batch " + quote(in) + " --threads 2" + m());
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(parse_jsonl(one.out).size(), 2500u);
  EXPECT_TRUE(one.out == two.out) << "outputs differ between --threads 1 and 2";
}

TEST_F(BatchCli, MalformedLineIsExit3NamingFileAndLineWithNoOutputFile) {
  std::string data = records(1500);
  data += "{\"id\": 1500, \"text\": \"broken\"\n";  // line 1501: no closing brace
  data += records(3);
  const std::string in = write("bad.jsonl", data);
  const std::string out = tmp_.path("out.jsonl");
  const Result r = router(tmp_, "batch --on-error fail " + quote(in) + " -o " + quote(out) + m());
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(in + ":1501"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& entry : fs::directory_iterator(fs::path(out).parent_path())) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos)
        << "temporary file left behind: " << entry.path();
  }
}

TEST_F(BatchCli, BadRecordsAreNamed) {
  struct Case {
    std::string line, message;
  };
  const std::vector<Case> cases = {
      {R"({"id": 1})", "missing \"text\""},
      {R"({"text": 12})", "\"text\" is not a string"},
      {R"({"text": "   "})", "\"text\" is empty"},
      {R"([1, 2])", "expected a JSON object"},
      {R"("just a string")", "expected a JSON object"},
  };
  for (const auto& c : cases) {
    const std::string in =
        write("bad.jsonl", "{\"text\": \"where is my order 5\"}\n" + c.line + "\n");
    const std::string out = tmp_.path("out.jsonl");
    const Result r = router(tmp_, "batch --on-error fail " + quote(in) + " -o " + quote(out) + m());
    EXPECT_EQ(r.code, 3) << c.line << ": " << r.err;
    EXPECT_NE(r.err.find(in + ":2: " + c.message), std::string::npos) << c.line << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.line;
  }
  // In a JSON array the message names the index.
  const std::string in = write("bad.json", R"([{"text": "cancel order 4"}, {"id": 2}])");
  const Result r = router(tmp_, "batch --on-error fail " + quote(in) + m());
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find(in + ":[1]: missing \"text\""), std::string::npos) << r.err;
  // A top-level value that is neither an array nor objects.
  const Result scalar =
      router(tmp_, "batch --on-error fail " + quote(write("n.json", "42\n")) + m());
  EXPECT_EQ(scalar.code, 3);
  EXPECT_NE(scalar.err.find("expected a JSON object"), std::string::npos) << scalar.err;
}

TEST_F(BatchCli, SkipInvalidLabelsTheRestAndExits6) {
  std::string data = records(4);
  data.insert(data.find('\n') + 1, "not json at all\n{\"id\": 99}\n");  // lines 2 and 3
  const std::string in = write("mixed.jsonl", data);
  const std::string out = tmp_.path("out.jsonl");
  const Result r =
      router(tmp_, "batch " + quote(in) + " -o " + quote(out) + " --skip-invalid" + m());
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find(in + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(in + ":3: missing \"text\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 record(s) could not be labelled (skipped)"), std::string::npos) << r.err;
  const auto got = parse_jsonl(slurp(out));
  ASSERT_EQ(got.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i]["id"], i);
    EXPECT_TRUE(got[i].contains("prediction"));
  }
}

TEST_F(BatchCli, SkippedRecordsAreReportedEvenWithQuiet) {
  const std::string in = write("mixed.jsonl", records(2) + "{\"id\": 99}\n");
  const Result r = router(tmp_, "-q batch " + quote(in) + " --skip-invalid" + m());
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find(in + ":3: missing \"text\""), std::string::npos) << r.err;
  EXPECT_EQ(parse_jsonl(r.out).size(), 2u);
}

TEST_F(BatchCli, InterruptLeavesNoOutputFile) {
  const std::string in = write("big.jsonl", records(300000));
  const std::string out = tmp_.path("out.jsonl"), pid = tmp_.path("pid"), rc = tmp_.path("rc");
  const std::string cmd = "(" + quote(ROUTER_BINARY) + " batch " + quote(in) + " -o " + quote(out) +
                          m() + " --threads 1 2>/dev/null & echo $! >" + quote(pid) +
                          "; wait $!; echo $? >" + quote(rc) + ") &";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  // Signal once the output's temporary file exists: the handlers are installed by then.
  auto temp_exists = [&] {
    for (const auto& e : fs::directory_iterator(tmp_.path(""))) {
      if (e.path().filename().string().rfind("out.jsonl.tmp.", 0) == 0) return true;
    }
    return false;
  };
  // The shell creates the pid file before it writes the number: wait for the whole line.
  auto pid_written = [&] {
    const std::string p = slurp(pid);
    return !p.empty() && p.back() == '\n';
  };
  for (int i = 0; i < 2000 && !(pid_written() && temp_exists()); ++i) ::usleep(5000);
  ASSERT_TRUE(pid_written()) << "no pid";
  ASSERT_TRUE(temp_exists()) << "router never started writing";
  ::kill(std::stoi(slurp(pid)), SIGTERM);
  for (int i = 0; i < 2000 && slurp(rc).empty(); ++i) ::usleep(5000);
  ASSERT_FALSE(slurp(rc).empty()) << "router did not stop";
  EXPECT_EQ(std::stoi(slurp(rc)), 130);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(temp_exists()) << "temporary file left behind";
}

TEST_F(BatchCli, RefusesToWriteOverItsInput) {
  const std::string data = records(3);
  const std::string in = write("in.jsonl", data);
  const Result r = router(tmp_, "batch " + quote(in) + " -o " + quote(in) + m());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("would overwrite the input"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(in), data);
  // Also through another name for the same file.
  fs::create_symlink(in, tmp_.path("link.jsonl"));
  EXPECT_EQ(router(tmp_, "batch " + quote(in) + " -o " + quote(tmp_.path("link.jsonl")) + m()).code,
            2);
  EXPECT_EQ(slurp(in), data);
}

TEST_F(BatchCli, UnwritableOutputIsExit5BeforeAnyWork) {
  const std::string in = write("in.jsonl", records(3));
  const Result r =
      router(tmp_, "batch " + quote(in) + " -o " + quote(tmp_.path("no/such/dir/o.jsonl")) + m());
  EXPECT_EQ(r.code, 5) << r.err;
  const Result dir = router(tmp_, "batch " + quote(in) + " -o " + quote(tmp_.path("")) + m());
  EXPECT_EQ(dir.code, 5) << dir.err;
  EXPECT_NE(dir.err.find("is a directory"), std::string::npos) << dir.err;
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directory(tmp_.path("ro"));
    fs::permissions(tmp_.path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    const Result ro =
        router(tmp_, "batch " + quote(in) + " -o " + quote(tmp_.path("ro/o.jsonl")) + m());
    EXPECT_EQ(ro.code, 5) << ro.err;
  }
}

TEST_F(BatchCli, ExistingPredictionIsReplacedInPlaceWithOneWarning) {
  const std::string in =
      write("in.jsonl",
            "{\"id\": 1, \"prediction\": \"old\", \"text\": \"cancel order 3\"}\n"
            "{\"id\": 2, \"prediction\": null, \"text\": \"thanks for the cake\"}\n");
  const Result r = router(tmp_, "batch " + quote(in) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = parse_jsonl(r.out);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& rec : got) {
    std::vector<std::string> keys;
    for (auto it = rec.begin(); it != rec.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "prediction", "text"}));
    EXPECT_TRUE(rec["prediction"].is_object());
  }
  size_t warnings = 0;
  for (size_t p = 0; (p = r.err.find("already has a \"prediction\"", p)) != std::string::npos;
       ++p) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1u) << r.err;
}

TEST_F(BatchCli, LabelledRecordsGetAnEvaluationOnStderr) {
  const Result r = router(tmp_, "batch " + quote(shared().train) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("precision    recall  f1-score   support"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected calibration error"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("precision"), std::string::npos);  // stdout carries only records
  // Unlabelled records: no evaluation.
  const Result plain = router(tmp_, "batch " + quote(write("in.jsonl", records(5))) + m());
  EXPECT_EQ(plain.err.find("precision"), std::string::npos) << plain.err;
}

TEST_F(BatchCli, VerboseSummaryLine) {
  const std::string in = write("in.jsonl", records(10));
  const Result r = router(tmp_, "-v batch " + quote(in) + m());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("10 records in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("emails/s"), std::string::npos) << r.err;
}

TEST_F(BatchCli, GnuParallelKeepOrderMatchesOneProcess) {
  if (std::system("command -v parallel >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "GNU parallel is not on PATH";
  }
  const std::string in = write("in.jsonl", records(1234));
  const Result one = router(tmp_, "batch -" + m(), in);
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string out = tmp_.path("parallel.out"), err = tmp_.path("parallel.err");
  const std::string cmd = "parallel --will-cite --pipe --keep-order -N 50 -j 3 " +
                          quote(ROUTER_BINARY) + " batch - -m " + quote(model()) + " <" +
                          quote(in) + " >" + quote(out) + " 2>" + quote(err);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(err);
  EXPECT_EQ(parse_jsonl(slurp(out)).size(), 1234u);
  EXPECT_TRUE(slurp(out) == one.out) << "parallel output differs from one process";
}

class EvalCli : public BatchCli {};

// The predicted label of each text, read from `router batch`.
std::vector<std::string> predicted_labels(const Tmp& tmp, const std::string& in,
                                          const std::string& model) {
  const Result r = router(tmp, "batch " + quote(in) + " -m " + quote(model));
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<std::string> out;
  for (const auto& rec : parse_jsonl(r.out)) out.push_back(rec["prediction"]["label"]);
  return out;
}

TEST_F(EvalCli, JsonAccuracyMatchesBatchPredictions) {
  const auto& s = shared();
  const auto pred = predicted_labels(tmp_, s.train, model());
  ASSERT_EQ(pred.size(), s.data.size());
  int right = 0;
  for (size_t i = 0; i < pred.size(); ++i) right += pred[i] == s.data[i].second;
  const Result r = router(tmp_, "eval " + quote(s.train) + " --json" + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"n", "accuracy", "macro_f1", "pair_accuracy", "ece", "per_label", "confusion", "labels"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["n"], s.data.size());
  EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), static_cast<double>(right) / pred.size());
  EXPECT_TRUE(j["pair_accuracy"].is_null());
  EXPECT_EQ(j["labels"], (nlohmann::json{"cancel", "order_status", "thanks"}));
  int64_t total = 0, diagonal = 0;
  for (size_t t = 0; t < 3; ++t) {
    for (size_t p = 0; p < 3; ++p) total += j["confusion"][t][p].get<int64_t>();
    diagonal += j["confusion"][t][t].get<int64_t>();
  }
  EXPECT_EQ(total, static_cast<int64_t>(s.data.size()));
  EXPECT_EQ(diagonal, right);
  const double ece = j["ece"];
  EXPECT_GE(ece, 0.0);
  EXPECT_LE(ece, 1.0);
}

TEST_F(EvalCli, TextReportHasEverySection) {
  const Result r =
      router(tmp_, "eval " + quote(shared().train) + " --min-confidence 0.5 -k 2" + m());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* part : {"              precision    recall  f1-score   support\n",
                           "    accuracy  ", "   macro avg  ", "weighted avg  ", "confusion matrix",
                           "swap-pair accuracy: n/a", "expected calibration error (15 bins): ",
                           "coverage at confidence >= 0.5: ", "top-2 accuracy: "}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
}

TEST_F(EvalCli, PairAccuracyNeedsEveryMemberRight) {
  const auto& s = shared();
  std::vector<ojson> texts;
  for (int i = 0; i < 8; ++i) texts.push_back({{"text", s.data[i].first}});
  const std::string plain = write("plain.jsonl", jsonl(texts));
  const auto pred = predicted_labels(tmp_, plain, model());
  ASSERT_EQ(pred.size(), 8u);
  auto wrong = [&](const std::string& label) {
    return label == "cancel" ? std::string("thanks") : std::string("cancel");
  };
  // Pair a: both right. Pair b: one wrong. Pair c: both wrong. "d" on one record only: no pair.
  const std::vector<std::pair<std::string, bool>> plan = {{"a", true},  {"a", true},  {"b", true},
                                                          {"b", false}, {"c", false}, {"c", false},
                                                          {"d", true},  {"", true}};
  std::vector<ojson> recs;
  int right = 0;
  for (int i = 0; i < 8; ++i) {
    ojson r = texts[i];
    r["label"] = plan[i].second ? pred[i] : wrong(pred[i]);
    if (!plan[i].first.empty()) r["pair"] = plan[i].first;
    right += plan[i].second;
    recs.push_back(r);
  }
  const Result r =
      router(tmp_, "eval " + quote(write("pairs.jsonl", jsonl(recs))) + " --json" + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pair_groups"], 3);
  EXPECT_EQ(j["pair_groups_right"], 1);
  EXPECT_NEAR(j["pair_accuracy"].get<double>(), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), right / 8.0);
}

TEST_F(EvalCli, UnknownLabelIsReportedNotCountedWrong) {
  const auto& s = shared();
  std::string data = slurp(s.train);
  data += R"({"text": "i want a refund", "label": "refund"})"
          "\n";
  const Result r = router(tmp_, "eval " + quote(write("d.jsonl", data)) + " --json" + m());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["n"], s.data.size());
  EXPECT_EQ(j["n_unknown"], 1);
  EXPECT_EQ(j["unknown_labels"]["refund"], 1);
  EXPECT_NE(r.err.find("\"refund\" (1)"), std::string::npos) << r.err;
  // Nothing known at all is an error.
  const Result none = router(tmp_, "eval " +
                                       quote(write("u.jsonl", R"({"text": "hi", "label": "refund"})"
                                                              "\n")) +
                                       m());
  EXPECT_EQ(none.code, 3) << none.err;
}

TEST_F(EvalCli, MissingLabelIsExit3) {
  const Result r = router(tmp_, "eval " + quote(write("d.jsonl", "{\"text\": \"hi\"}\n")) + m());
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find(":1: missing \"label\""), std::string::npos) << r.err;
}

// A co-process on pipes: each record written gets its answer back before the next is written
// (poll with a time limit, so that a router that waits for more input fails the test instead of
// hanging it). The same for `batch -` and `classify --lines`.
TEST(Streaming, EachRecordIsAnsweredBeforeTheNextIsWritten) {
  const std::string model = router::test::source_path("tests/fixtures/models/tiny.json");
  const std::vector<std::pair<std::vector<std::string>, std::string>> commands = {
      {{"batch", "-", "-m", model}, "{\"text\": \"where is my order\"}\n"},
      {{"classify", "--lines", "-m", model}, "where is my order\n"},
  };
  for (const auto& [args, line] : commands) {
    int to_child[2], from_child[2];
    ASSERT_EQ(::pipe(to_child), 0);
    ASSERT_EQ(::pipe(from_child), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) ::close(fd);
      std::vector<char*> argv = {const_cast<char*>(ROUTER_BINARY), const_cast<char*>("-q")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(ROUTER_BINARY, argv.data());
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    for (int round = 0; round < 3; ++round) {
      ASSERT_EQ(::write(to_child[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
      std::string answer;
      while (answer.find('\n') == std::string::npos) {
        pollfd p = {from_child[0], POLLIN, 0};
        ASSERT_EQ(::poll(&p, 1, 10000), 1) << args[0] << ": no answer within 10 s, round " << round;
        char buf[4096];
        const ssize_t n = ::read(from_child[0], buf, sizeof buf);
        ASSERT_GT(n, 0) << args[0];
        answer.append(buf, static_cast<size_t>(n));
      }
      EXPECT_EQ(answer.find('\n'), answer.size() - 1)
          << args[0] << ": one answer a line: " << answer;
    }
    ::close(to_child[1]);
    ::close(from_child[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << args[0];
  }
}

}  // namespace
