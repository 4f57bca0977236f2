// One answer for one email, whichever command gives it: classify (arguments, batched), classify
// --lines (from a file and from a pipe), batch (one email a pass) and explain print the same
// label and probabilities to the last bit, for hand-written emails of every length.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using router::test::quote;
using router::test::run_router;
using router::test::spit;

TEST(Predictions, EveryCommandGivesTheSameBits) {
  router::test::TempDir tmp("router_paths");
  std::vector<std::string> emails;
  for (const auto& r : router::test::parse_jsonl(
           router::test::slurp(router::test::source_path("data/crumb/real-test.jsonl")))) {
    std::string text = r["text"].get<std::string>();
    std::istringstream words(text);
    std::string one_line, w;
    while (words >> w) one_line += (one_line.empty() ? "" : " ") + w;
    emails.push_back(one_line);
    if (emails.size() == 40) break;
  }
  std::string lines, records;
  for (const auto& e : emails) {
    lines += e + "\n";
    records += nlohmann::json{{"text", e}}.dump() + "\n";
  }
  spit(tmp.path("lines.txt"), lines);
  spit(tmp.path("in.jsonl"), records);
  const auto batched =
      run_router("classify --json -k 9 --lines -f " + quote(tmp.path("lines.txt")), tmp.dir());
  const auto streamed =
      run_router("classify --json -k 9 --lines", tmp.dir(), tmp.path("lines.txt"));
  const auto batch = run_router("batch -k 9 " + quote(tmp.path("in.jsonl")), tmp.dir());
  ASSERT_EQ(batched.code, 0) << batched.err;
  ASSERT_EQ(batch.code, 0) << batch.err;
  const auto a = router::test::parse_jsonl(batched.out), b = router::test::parse_jsonl(batch.out);
  ASSERT_EQ(a.size(), emails.size());
  ASSERT_EQ(b.size(), emails.size());
  EXPECT_EQ(streamed.out, batched.out) << "classify --lines from a file and from a pipe";
  for (size_t i = 0; i < emails.size(); ++i) {
    EXPECT_EQ(a[i], b[i]["prediction"]) << emails[i];
    if (i % 8) continue;  // one process each for the rest: a sample is enough
    const auto one = run_router("classify --json -k 9 " + quote(emails[i]), tmp.dir());
    EXPECT_EQ(router::test::parse_jsonl(one.out).at(0), a[i]) << emails[i];
    const auto explained = run_router("explain --json -k 9 " + quote(emails[i]), tmp.dir());
    ASSERT_EQ(explained.code, 0) << explained.err;
    // explain writes its object with sorted keys: compare values, not key order.
    EXPECT_EQ(nlohmann::json::parse(explained.out)["prediction"],
              nlohmann::json::parse(a[i].dump()))
        << emails[i];
  }
}

}  // namespace
