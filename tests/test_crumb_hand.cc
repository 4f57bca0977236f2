// The hand-written Crumb corpus (data/crumb/README.md, "Hand-written mail"): every record is
// well formed with one of the nine labels, ids are unique across all files, every swap pair holds
// two emails with different labels made of the same tokens (router's own pre-tokens of the
// normalised text), the training corpus has the size its brief asked for, and the test files
// and the judges' mail share no writer and no email of six or more tokens with anything a model
// learns from (a round kept but not yet landed included), nor the judges' mail with the test
// files or with each other.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "text/normalize.h"
#include "text/pretokenize.h"

namespace router {
namespace {

const std::vector<std::string> kLabels = {"refund_item",  "refund_delivery_fee", "replace_item",
                                          "cancel_order", "change_order",        "order_status",
                                          "feedback",     "general_inquiry",     "other"};

struct Email {
  std::string id, text, label, pair, writer, where;
};

std::vector<Email> load(const std::string& relative) {
  std::vector<Email> out;
  const std::string text = test::slurp(test::source_path(relative));
  EXPECT_FALSE(text.empty()) << relative << " is missing or empty";
  int line = 0;
  for (const auto& r : test::parse_jsonl(text)) {
    ++line;
    Email e;
    e.where = relative + ":" + std::to_string(line);
    EXPECT_EQ(r.size(), 5u) << e.where << ": keys must be id, text, label, pair, writer";
    e.id = r.at("id").get<std::string>();
    e.text = r.at("text").get<std::string>();
    e.label = r.at("label").get<std::string>();
    e.pair = r.at("pair").is_null() ? "" : r.at("pair").get<std::string>();
    e.writer = r.at("writer").get<std::string>();
    out.push_back(std::move(e));
  }
  return out;
}

const std::vector<std::string> kTrainFiles = {"data/crumb/hand/train.jsonl",
                                              "data/crumb/hand/valid.jsonl"};
const std::vector<std::string> kTestFiles = {"data/crumb/real-test.jsonl",
                                             "data/crumb/long-test.jsonl"};
const std::vector<std::string> kJudgeFiles = {"data/crumb/judge.jsonl", "data/crumb/judge2.jsonl"};

// A round kept but not yet in hand/ (data/crumb/rounds/<round>/*.jsonl) is training mail for the
// next built-in models, so it is held to the training mail's rules already.
std::vector<std::string> round_files() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const fs::path root = test::source_path(""), rounds = root / "data/crumb/rounds";
  if (!fs::exists(rounds)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(rounds)) {
    if (entry.path().extension() == ".jsonl") {
      out.push_back(fs::relative(entry.path(), root).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Everything a model learns from by hand: the hand-written training mail and the rounds to come.
std::vector<std::string> learnt_files() {
  std::vector<std::string> files = kTrainFiles;
  for (auto& f : round_files()) files.push_back(std::move(f));
  return files;
}

std::vector<Email> load_all(const std::vector<std::string>& files) {
  std::vector<Email> all;
  for (const auto& f : files) {
    auto part = load(f);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<std::string> sorted_tokens(const std::string& text) {
  const std::string norm = normalize(text);
  std::vector<std::string> out;
  for (auto t : pretokenize(norm)) out.emplace_back(t);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CrumbHand, RecordsAreWellFormedAndIdsUnique) {
  std::set<std::string> ids;
  std::vector<std::string> files = learnt_files();
  files.insert(files.end(), kTestFiles.begin(), kTestFiles.end());
  files.insert(files.end(), kJudgeFiles.begin(), kJudgeFiles.end());
  for (const auto& e : load_all(files)) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.where << ": id " << e.id << " used twice";
    EXPECT_NE(std::find(kLabels.begin(), kLabels.end(), e.label), kLabels.end())
        << e.where << ": unknown label " << e.label;
    EXPECT_FALSE(sorted_tokens(e.text).empty()) << e.where << ": no words";
  }
}

TEST(CrumbHand, PairsHaveTheSameTokensAndDifferentLabels) {
  for (const auto& files :
       {learnt_files(), std::vector<std::string>{kTestFiles[0]},
        std::vector<std::string>{kJudgeFiles[0]}, std::vector<std::string>{kJudgeFiles[1]}}) {
    std::map<std::string, std::vector<Email>> pairs;
    for (auto& e : load_all(files)) {
      if (!e.pair.empty()) pairs[e.pair].push_back(e);
    }
    EXPECT_FALSE(pairs.empty());
    for (const auto& [id, members] : pairs) {
      ASSERT_EQ(members.size(), 2u) << "pair " << id << " has " << members.size() << " emails";
      const Email &a = members[0], &b = members[1];
      EXPECT_NE(a.label, b.label) << "pair " << id << ": both sides are " << a.label;
      EXPECT_EQ(sorted_tokens(a.text), sorted_tokens(b.text))
          << "pair " << id << ": token multisets differ\n  " << a.text << "\n  " << b.text;
    }
  }
}

TEST(CrumbHand, TrainingCorpusHasTheSizeAsked) {
  const auto all = load_all(kTrainFiles);
  std::map<std::string, int> per_label;
  std::set<std::string> writers;
  int paired = 0;
  for (const auto& e : all) {
    ++per_label[e.label];
    writers.insert(e.writer);
    paired += !e.pair.empty();
  }
  EXPECT_GE(all.size(), 3000u);
  EXPECT_GE(writers.size(), 6u);
  for (const auto& label : kLabels) EXPECT_GE(per_label[label], 300) << label;
  EXPECT_GE(paired * 10, static_cast<int>(all.size()) * 3) << "under 30% of emails in pairs";
}

// The writers and the normalised texts of everything a model learns from: the hand-written
// training mail, the rounds to come and every synthetic split.
void training_mail(std::set<std::string>& writers, std::set<std::string>& texts) {
  for (const auto& e : load_all(learnt_files())) {
    writers.insert(e.writer);
    texts.insert(normalize(e.text));
  }
  for (const char* split : {"train", "valid", "test", "dev"}) {
    const std::string path = std::string("data/crumb/") + split + ".jsonl";
    for (const auto& r : test::parse_jsonl(test::slurp(test::source_path(path)))) {
      texts.insert(normalize(r.at("text").get<std::string>()));
    }
  }
}

// Expects `file` to share no writer in `writers` and no email of six or more tokens in `texts`
// (the mail named `seen`; "hi", "ok thanks", "Sent from my iPhone": a real inbox holds such
// mail many times over), and to hold at least `per_label` emails of every label and
// `pair_percent`% of its emails in pairs.
void expect_held_out(const std::string& file, const std::set<std::string>& writers,
                     const std::set<std::string>& texts, const std::string& seen, int per_label,
                     int pair_percent) {
  std::map<std::string, int> counts;
  int paired = 0, n = 0;
  for (const auto& e : load(file)) {
    EXPECT_EQ(writers.count(e.writer), 0u) << e.where << ": " << e.writer << " wrote " << seen;
    if (sorted_tokens(e.text).size() >= 6) {
      EXPECT_EQ(texts.count(normalize(e.text)), 0u) << e.where << ": also in " << seen;
    }
    ++counts[e.label];
    paired += !e.pair.empty();
    ++n;
  }
  for (const auto& label : kLabels) EXPECT_GE(counts[label], per_label) << file << ": " << label;
  EXPECT_GE(paired * 100, n * pair_percent) << file << ": under " << pair_percent << "% in pairs";
}

TEST(CrumbHand, TestMailIsIndependentOfTrainingMail) {
  std::set<std::string> train_writers, train_texts;
  training_mail(train_writers, train_texts);
  expect_held_out(kTestFiles[0], train_writers, train_texts, "training mail", 50, 30);
  for (const auto& e : load(kTestFiles[1])) {
    EXPECT_EQ(train_writers.count(e.writer), 0u) << e.where;
    EXPECT_EQ(train_texts.count(normalize(e.text)), 0u) << e.where << ": also in training data";
  }
}

// The judges' mail decides which data rounds and recipes are kept (data/crumb/README.md), so it
// must be as unseen as the test mail: no writer and no email shared with training mail, with the
// test files or with the other judge, and enough of every label and of pairs to rank two models.
TEST(CrumbHand, JudgeMailIsIndependentOfTrainingAndTestMail) {
  std::set<std::string> writers, texts;
  training_mail(writers, texts);
  for (const auto& e : load_all(kTestFiles)) {
    writers.insert(e.writer);
    texts.insert(normalize(e.text));
  }
  for (const auto& judge : kJudgeFiles) {
    expect_held_out(judge, writers, texts, "training, test or the other judge's mail", 100, 40);
    for (const auto& e : load(judge)) {
      writers.insert(e.writer);
      texts.insert(normalize(e.text));
    }
  }
}

}  // namespace
}  // namespace router
