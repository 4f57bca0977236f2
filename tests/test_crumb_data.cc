// Checks the committed Crumb dataset (data/crumb/*.jsonl): it regenerates byte for byte from
// crumb_gen, every record is well formed, the sizes and label balance hold, swap pairs differ
// only in word order (about half in nothing a bigram model can see), test and dev do not repeat
// training text, and each keeps its held-out material to itself. data/crumb/README.md describes
// what these promises mean.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "crumb_phrases.h"

namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = fs::path(ROUTER_SOURCE_DIR) / "data" / "crumb";
const char* const kSplitNames[] = {"train", "valid", "test", "dev"};
const std::vector<std::string> kLabels = {"refund_item",  "refund_delivery_fee", "replace_item",
                                          "cancel_order", "change_order",        "order_status",
                                          "feedback",     "general_inquiry"};

struct Record {
  std::string id, text, label;
  std::optional<std::string> pair;
};
using Splits = std::map<std::string, std::vector<Record>>;

std::string read_bytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Parses one split strictly: one object per line, keys exactly id, text, label, pair in that order.
std::vector<Record> parse_split(const fs::path& path) {
  std::vector<Record> out;
  std::istringstream lines(read_bytes(path));
  std::string line;
  int line_no = 0;
  while (std::getline(lines, line)) {
    ++line_no;
    const std::string where = path.string() + ":" + std::to_string(line_no);
    const auto j = nlohmann::ordered_json::parse(line);  // throws with the position on bad JSON
    std::vector<std::string> keys;
    for (const auto& [key, value] : j.items()) keys.push_back(key);
    if (keys != std::vector<std::string>{"id", "text", "label", "pair"})
      throw std::runtime_error(where + ": keys must be id, text, label, pair in that order");
    if (!j["id"].is_string() || !j["text"].is_string() || !j["label"].is_string() ||
        !(j["pair"].is_null() || j["pair"].is_string()))
      throw std::runtime_error(where + ": wrong value type");
    Record r{j["id"], j["text"], j["label"], std::nullopt};
    if (j["pair"].is_string()) r.pair = j["pair"].get<std::string>();
    out.push_back(std::move(r));
  }
  return out;
}

const Splits& splits() {
  static const Splits loaded = [] {
    Splits s;
    for (const char* name : kSplitNames)
      s[name] = parse_split(kDataDir / (std::string(name) + ".jsonl"));
    return s;
  }();
  return loaded;
}

// Whitespace separates tokens; each ASCII punctuation character is a token of its own; other
// bytes (letters, digits, UTF-8) join into words. crumb_gen checks its pairs the same way.
std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) out.push_back(word);
    word.clear();
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isspace(c)) {
      flush();
    } else if (c < 0x80 && std::ispunct(c)) {
      flush();
      out.emplace_back(1, ch);
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

// The word bigrams of a text split on whitespace alone, as fastText reads it, sorted.
std::vector<std::pair<std::string, std::string>> bigrams(const std::string& text) {
  std::istringstream in(text);
  const std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 1; i < words.size(); ++i) out.emplace_back(words[i - 1], words[i]);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CrumbData, RegeneratesByteForByte) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("router-crumb-" + std::to_string(::getpid()) + "-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  const std::string cmd = std::string("\"") + ROUTER_CRUMB_GEN + "\" --out \"" + dir.string() +
                          "\" --phrases \"" + (kDataDir / "phrases").string() + "\" 2>/dev/null";
  const int status = std::system(cmd.c_str());
  ASSERT_EQ(status, 0) << "crumb_gen failed: " << cmd;
  for (const char* name : kSplitNames) {
    const std::string file = std::string(name) + ".jsonl";
    const std::string fresh = read_bytes(dir / file);
    const std::string committed = read_bytes(kDataDir / file);
    if (fresh == committed) continue;
    // Name the first differing line so a stale file is easy to find.
    size_t at = 0;
    while (at < fresh.size() && at < committed.size() && fresh[at] == committed[at]) ++at;
    const auto line =
        1 + std::count(committed.begin(), committed.begin() + static_cast<long>(at), '\n');
    ADD_FAILURE() << "data/crumb/" << file << " differs from a fresh crumb_gen run at line " << line
                  << " (sizes " << committed.size() << " vs " << fresh.size()
                  << "); regenerate with: build/tools/crumb_gen --out data/crumb";
  }
  fs::remove_all(dir);
}

TEST(CrumbData, SizesAndLabels) {
  const Splits& s = splits();
  std::map<std::string, std::map<std::string, int>> counts;
  for (const auto& [name, records] : s)
    for (const Record& r : records) {
      EXPECT_NE(std::find(kLabels.begin(), kLabels.end(), r.label), kLabels.end())
          << name << " " << r.id << ": unknown label '" << r.label << "'";
      EXPECT_FALSE(r.text.empty()) << name << " " << r.id << ": empty text";
      ++counts[name][r.label];
    }
  EXPECT_GE(s.at("train").size(), 8000u);
  EXPECT_GE(s.at("valid").size(), 800u);
  EXPECT_GE(s.at("test").size(), 1500u);
  EXPECT_GE(s.at("dev").size(), 800u);
  for (const std::string& label : kLabels) {
    EXPECT_GE(counts["train"][label], 600) << "train has too few " << label;
    for (const char* name : kSplitNames)
      EXPECT_GT(counts[name][label], 0) << name << " lacks " << label;
  }
}

TEST(CrumbData, IdsAreUnique) {
  std::set<std::string> ids;
  for (const auto& [name, records] : splits())
    for (const Record& r : records) EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
}

TEST(CrumbData, PairsDifferOnlyInWordOrder) {
  for (const auto& [name, records] : splits()) {
    std::map<std::string, std::vector<const Record*>> pairs;
    for (const Record& r : records)
      if (r.pair) pairs[*r.pair].push_back(&r);
    ASSERT_FALSE(pairs.empty()) << name << " has no pairs";
    for (const auto& [pair, members] : pairs) {
      ASSERT_EQ(members.size(), 2u)
          << name << " pair " << pair << " has " << members.size() << " records";
      const Record& a = *members[0];
      const Record& b = *members[1];
      EXPECT_NE(a.label, b.label) << name << " pair " << pair << ": both sides are " << a.label;
      std::vector<std::string> ta = tokens(a.text), tb = tokens(b.text);
      EXPECT_NE(ta, tb) << name << " pair " << pair << ": same tokens in the same order";
      std::sort(ta.begin(), ta.end());
      std::sort(tb.begin(), tb.end());
      EXPECT_EQ(ta, tb) << name << " pair " << pair << ": token multisets differ\n  " << a.text
                        << "\n  " << b.text;
    }
  }
}

TEST(CrumbData, AtLeastAQuarterOfEachSplitIsPaired) {
  for (const auto& [name, records] : splits()) {
    const auto paired = std::count_if(records.begin(), records.end(),
                                      [](const Record& r) { return r.pair.has_value(); });
    EXPECT_GE(4 * paired, static_cast<long>(records.size()))
        << name << ": only " << paired << " of " << records.size() << " emails are in pairs";
  }
}

// Both sides of a balanced pair hold the same bigrams (and so unigrams) the same number of times:
// a model of unigrams and bigrams gives them the same label, so at most one side is right.
TEST(CrumbData, AboutHalfThePairsHaveTheSameBigrams) {
  for (const auto& [name, records] : splits()) {
    std::map<std::string, std::vector<const Record*>> pairs;
    for (const Record& r : records)
      if (r.pair) pairs[*r.pair].push_back(&r);
    long balanced = 0;
    for (const auto& [pair, members] : pairs)
      balanced += bigrams(members.at(0)->text) == bigrams(members.at(1)->text);
    const long n = static_cast<long>(pairs.size());
    EXPECT_GE(10 * balanced, 4 * n) << name << ": " << balanced << " of " << n << " pairs";
    EXPECT_LE(10 * balanced, 6 * n) << name << ": " << balanced << " of " << n << " pairs";
  }
}

TEST(CrumbData, TestAndDevTextNeverAppearsInTrain) {
  std::set<std::string> train;
  for (const Record& r : splits().at("train")) train.insert(r.text);
  for (const char* name : {"test", "dev"})
    for (const Record& r : splits().at(name))
      EXPECT_EQ(train.count(r.text), 0u) << name << " " << r.id << " repeats a training email";
}

// Every held-out product of the generator's table (products.tsv) appears in its own split (use
// held: test, dev: dev) and in no other.
TEST(CrumbData, HeldOutProductsStayInTheirSplit) {
  using router::crumb::Use;
  const router::crumb::Phrases phrases = router::crumb::load_phrases(kDataDir / "phrases");
  int checked = 0;
  for (const router::crumb::Product& p : phrases.products) {
    if (p.use == Use::kAll) continue;
    const std::string home = p.use == Use::kHeld ? "test" : "dev";
    const std::string product = p.name;
    ++checked;
    for (const auto& [name, records] : splits()) {
      const auto n = std::count_if(records.begin(), records.end(), [&](const Record& r) {
        return r.text.find(product) != std::string::npos;
      });
      if (name == home)
        EXPECT_GT(n, 0) << product << " never appears in " << home;
      else
        EXPECT_EQ(n, 0) << product << " (held out for " << home << ") appears in " << name;
    }
  }
  EXPECT_GT(checked, 0) << "products.tsv has no held-out entries";
}

}  // namespace
