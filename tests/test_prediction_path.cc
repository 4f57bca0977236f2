// One answer for one email, whichever command gives it (every one goes through label_emails,
// model/labelling.h): classify (arguments, all at once), classify --lines (from a file and from a
// pipe), batch (in chunks), eval, explain, filter and route give the same label and
// probabilities to the last bit, for hand-written emails of every length.
#include <algorithm>
#include <cstdio>
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
    records += nlohmann::json{{"text", e}, {"label", "feedback"}}.dump() + "\n";
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
  // eval scores the same predictions: its confusion row for "feedback" (every record's label)
  // counts batch's labels.
  const auto eval = run_router("eval --json " + quote(tmp.path("in.jsonl")), tmp.dir());
  ASSERT_EQ(eval.code, 0) << eval.err;
  const auto report = nlohmann::json::parse(eval.out);
  const auto labels = report["labels"].get<std::vector<std::string>>();
  const size_t feedback = std::find(labels.begin(), labels.end(), "feedback") - labels.begin();
  std::vector<int64_t> row(labels.size(), 0);
  for (const auto& r : b) {
    const auto at = std::find(labels.begin(), labels.end(), r["prediction"]["label"]);
    ++row[at - labels.begin()];
  }
  EXPECT_EQ(report["confusion"][feedback].get<std::vector<int64_t>>(), row);
}

// A message through classify, filter and route: the same label and confidence.
TEST(Predictions, MailCommandsAgree) {
  router::test::TempDir tmp("router_mail_paths");
  const auto records = router::test::parse_jsonl(
      router::test::slurp(router::test::source_path("data/crumb/real-test.jsonl")));
  for (size_t i = 0; i < records.size() && i < 60; i += 12) {
    // Appended, because "m" + std::to_string(i) draws a false -Wrestrict warning from GCC 12.
    std::string name = "m";
    name += std::to_string(i);
    const std::string msg = tmp.path(name + ".eml");
    spit(msg, "From: customer@example.com\nSubject: order\n\n" +
                  records[i]["text"].get<std::string>() + "\n");
    const auto classified = run_router("classify --json -f " + quote(msg), tmp.dir());
    ASSERT_EQ(classified.code, 0) << classified.err;
    const auto p = nlohmann::json::parse(classified.out);
    char confidence[16];
    std::snprintf(confidence, sizeof confidence, "%.4f", p["confidence"].get<double>());
    const std::string label = p["label"];

    const auto filtered = run_router("filter", tmp.dir(), msg);
    ASSERT_EQ(filtered.code, 0) << filtered.err;
    EXPECT_NE(filtered.out.find("X-Router-Label: " + label + "\n"), std::string::npos)
        << filtered.out;
    EXPECT_NE(filtered.out.find(std::string("X-Router-Confidence: ") + confidence + "\n"),
              std::string::npos)
        << filtered.out;

    const auto routed =
        run_router("route " + quote(msg) + " --to " + quote(tmp.path("routed" + std::to_string(i))),
                   tmp.dir());
    ASSERT_EQ(routed.code, 0) << routed.err;
    EXPECT_EQ(routed.out.rfind(label + "\t" + confidence + "\t", 0), 0u) << routed.out;
  }
}

}  // namespace
