// Ensembles (router train --ensemble, or a --time-budget that holds several runs): members trained
// with seeds seed, seed + 1, ... from one tokenizer; every prediction reads the mean of their
// logits; the model file keeps the first member under "tensors" and the others under "members",
// read by the loader's fast path and its slow path alike.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/explain.h"
#include "base/errors.h"
#include "base/rng.h"
#include "model/binary_format.h"
#include "model/json_format.h"
#include "model/number_scan.h"
#include "order_task.h"
#include "test_support.h"
#include "train/trainer.h"

namespace router {
namespace {

using router::test::order_task;
using router::test::quote;
using router::test::run_router;
using router::test::slurp;
using router::test::spit;
using router::test::TempDir;

TrainOptions tiny(int threads, uint64_t seed, int ensemble) {
  TrainOptions o = fast_options();
  o.config.d_model = 16, o.config.n_heads = 2, o.config.n_layers = 1, o.config.d_ff = 32;
  o.config.max_len = 32, o.config.vocab_size = 300;
  o.epochs = 4, o.batch_size = 16, o.lr = 1e-2, o.patience = 4;
  o.seed = seed, o.threads = threads, o.ensemble = ensemble;
  return o;
}

bool same_tensors(const Params<float>& a, const Params<float>& b) {
  const auto ta = tensors(a), tb = tensors(b);
  if (ta.size() != tb.size()) return false;
  for (size_t i = 0; i < ta.size(); ++i) {
    if (ta[i].size != tb[i].size ||
        std::memcmp(ta[i].data, tb[i].data, ta[i].size * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

struct Trained {
  std::vector<Example> train = order_task(300, 1), valid = order_task(100, 2);
  TrainResult r1, r2, r3;
  Model one = train_model(train, valid, tiny(1, 3, 1), {}, r1);
  Model next = train_model(train, valid, tiny(1, 4, 1), {}, r2);
  Model both = train_model(train, valid, tiny(1, 3, 2), {}, r3);
};

const Trained& trained() {
  static const Trained t;
  return t;
}

// Member i is the run of seed + i on its own, byte for byte; the threads change nothing.
TEST(Ensemble, MembersAreTheRunsOfSuccessiveSeedsWhateverTheThreads) {
  const Trained& t = trained();
  ASSERT_EQ(t.both.members(), 2);
  EXPECT_TRUE(same_tensors(t.both.member(0), t.one.params()));
  EXPECT_TRUE(same_tensors(t.both.member(1), t.next.params()));
  ASSERT_EQ(t.r3.members.size(), 2u);
  EXPECT_EQ(t.r3.members[0].seed, 3u);
  EXPECT_EQ(t.r3.members[1].seed, 4u);
  EXPECT_EQ(t.r3.members[0].valid_accuracy, t.r1.valid_accuracy);
  EXPECT_EQ(t.r3.members[1].valid_accuracy, t.r2.valid_accuracy);
  EXPECT_EQ(t.r3.options.ensemble, 2);
  EXPECT_TRUE(t.r1.members.empty()) << "one model: no member list";
  TrainResult r;
  const Model two_threads = train_model(t.train, t.valid, tiny(2, 3, 2), {}, r);
  EXPECT_EQ(model_to_json(two_threads), model_to_json(t.both));
}

// Every prediction path reads the mean of the members' logits; the temperature and the
// validation accuracy are the ensemble's.
TEST(Ensemble, PredictionsReadTheMeanOfTheMembersLogits) {
  const Trained& t = trained();
  std::vector<std::vector<int32_t>> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(t.both.encode(t.valid[i].text));
  const auto preds = t.both.predict_encoded(ids, 2);
  int right = 0;
  for (int i = 0; i < 20; ++i) {
    const Mat<float> a = t.one.logits({&ids[i]}), b = t.next.logits({&ids[i]});
    const Mat<float> mean = (a + b) / 2.0f;
    const Mat<float> got = t.both.logits({&ids[i]});
    EXPECT_LT((got - mean).cwiseAbs().maxCoeff(), 1e-5f) << i;
    const Prediction p = t.both.finish(mean.row(0));
    EXPECT_EQ(preds[i].label, p.label) << i;
    EXPECT_NEAR(preds[i].confidence, p.confidence, 1e-5) << i;
  }
  int n = 0;
  for (const Example& e : t.valid) {
    right += t.both.labels()[t.both.predict(e.text).label] == e.label;
    ++n;
  }
  EXPECT_NEAR(t.r3.valid_accuracy, static_cast<double>(right) / n, 1e-9);
  EXPECT_EQ(t.both.temperature(), t.r3.temperature);
}

// The file: "members" after "tensors"; the same bytes again after a load; the fast path and the
// slow path give the same bits; problems are named by their JSON path; an ensemble is not packed
// into the binary format.
TEST(Ensemble, TheModelFileKeepsEveryMember) {
  const Trained& t = trained();
  const std::string text = model_to_json(t.both);
  const auto j = nlohmann::json::parse(text);
  ASSERT_TRUE(j.contains("members"));
  ASSERT_EQ(j["members"].size(), 1u);
  EXPECT_EQ(j["metadata"], nlohmann::json::object());
  const auto split = split_tensor_data(text, 64);
  ASSERT_TRUE(split.has_value());
  EXPECT_TRUE(split->data.count(member_prefix(0) + "embed.weight")) << "the fast path reads it";
  const Model fast = load_model_from_string(text, "m.json");
  EXPECT_EQ(model_to_json(fast), text);
  std::string slow_text = text;
  slow_text.replace(slow_text.find("\"members\""), 9, "\"memb\\u0065rs\"");
  const Model slow = load_model_from_string(slow_text, "m.json");
  ASSERT_EQ(slow.members(), 2);
  EXPECT_TRUE(same_tensors(slow.member(1), fast.member(1)));
  EXPECT_EQ(model_to_json(load_model_from_string(model_to_json(t.one), "one.json")),
            model_to_json(t.one))
      << "one model has no members key";

  auto expect_error = [](const nlohmann::json& bad, const std::string& what) {
    try {
      load_model_from_string(bad.dump(), "m.json");
      ADD_FAILURE() << "no error for " << what;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  nlohmann::json bad = j;
  bad["members"][0].erase("classifier.bias");
  expect_error(bad, "m.json: /members/0: missing tensor 'classifier.bias'");
  bad = j;
  bad["members"] = nlohmann::json::array();
  expect_error(bad, "m.json: /members: expected an array of 1 to 7 objects of tensors");
  bad = j;
  bad["members"][0]["embed.weight"]["data"][0] = "x";
  expect_error(bad, "m.json: /members/0/embed.weight/data/0: expected a number");

  try {
    model_to_binary(t.both);
    ADD_FAILURE() << "an ensemble was packed";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("ensemble"), std::string::npos);
  }
}

// explain: the importance is the ensemble's, the mean of the members' gradient x input.
TEST(Ensemble, ExplainAveragesTheMembersImportance) {
  const Trained& t = trained();
  const std::string text = t.valid[0].text;
  const Explanation e = explain(t.both, text);
  const auto ids = t.both.encode(text);
  const auto a =
      gradient_x_input(t.one.params(), t.one.config(), t.one.positions(), ids, e.prediction.label);
  const auto b = gradient_x_input(t.next.params(), t.next.config(), t.next.positions(), ids,
                                  e.prediction.label);
  ASSERT_EQ(e.raw_importance.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(e.raw_importance[i], (a[i] + b[i]) / 2, 1e-9);
  EXPECT_EQ(e.heads.size(), 2u) << "the first member's heads";
}

// The command line: --ensemble N, recorded in metadata.options (so --config repeats the run byte
// for byte) with each member's seed, best epoch and accuracy; info names it; a checkpoint is
// refused, as is a member count out of range.
TEST(Ensemble, TrainRecordsItAndConfigRepeatsIt) {
  TempDir tmp;
  std::string data;
  for (const Example& e : order_task(200, 5)) {
    data += nlohmann::json{{"text", e.text}, {"label", e.label}}.dump() + "\n";
  }
  spit(tmp.path("d.jsonl"), data);
  const std::string base = "train --train " + quote(tmp.path("d.jsonl")) +
                           " --d-model 16 --heads 2 --layers 1 --d-ff 16 --vocab-size 300 "
                           "--epochs 2 --batch-size 32 ";
  const auto r = run_router(base + "--ensemble 3 -o " + quote(tmp.path("m.json")), tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("member 3/3  epoch  2/2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ensemble of 3: valid accuracy"), std::string::npos) << r.err;
  const auto m = nlohmann::json::parse(slurp(tmp.path("m.json")));
  EXPECT_EQ(m["metadata"]["options"]["ensemble"], 3);
  ASSERT_EQ(m["metadata"]["members"].size(), 3u);
  EXPECT_EQ(m["metadata"]["members"][2]["seed"], 44);
  EXPECT_EQ(m["members"].size(), 2u);
  spit(tmp.path("recipe.json"), m["metadata"]["options"].dump());
  const auto again =
      run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                     quote(tmp.path("again.json")) + " --config " + quote(tmp.path("recipe.json")),
                 tmp.dir());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(slurp(tmp.path("again.json")), slurp(tmp.path("m.json")));

  const auto info = run_router("info -m " + quote(tmp.path("m.json")), tmp.dir());
  EXPECT_NE(info.out.find("ensemble     3 members; predictions average their logits"),
            std::string::npos)
      << info.out;
  const auto info_json = run_router("info --json -m " + quote(tmp.path("m.json")), tmp.dir());
  EXPECT_EQ(nlohmann::json::parse(info_json.out)["members"], 3);
  const auto classify = run_router(
      "classify --json -m " + quote(tmp.path("m.json")) + " 'refund then replace'", tmp.dir());
  EXPECT_EQ(classify.code, 0) << classify.err;
  // explain says whose heads and attention it shows, in the text and on the page.
  const auto explained =
      run_router("explain --attention -m " + quote(tmp.path("m.json")) + " --html " +
                     quote(tmp.path("e.html")) + " 'refund the cake then replace the box'",
                 tmp.dir());
  ASSERT_EQ(explained.code, 0) << explained.err;
  EXPECT_NE(explained.out.find("; the heads of the first of 3 members):"), std::string::npos)
      << explained.out;
  EXPECT_NE(explained.out.find("(the attention of the first of 3 members)"), std::string::npos);
  EXPECT_NE(slurp(tmp.path("e.html")).find("The heads of the first of 3 members."),
            std::string::npos);

  const auto checkpoint = run_router(base + "--ensemble 2 -o " + quote(tmp.path("c.json")) +
                                         " --checkpoint " + quote(tmp.path("c.ckpt")),
                                     tmp.dir());
  EXPECT_EQ(checkpoint.code, 2);
  EXPECT_NE(checkpoint.err.find("--checkpoint and --resume keep one run's state, not an "
                                "ensemble's"),
            std::string::npos)
      << checkpoint.err;
  const auto many = run_router(base + "--ensemble 9 -o " + quote(tmp.path("n.json")), tmp.dir());
  EXPECT_EQ(many.code, 2) << many.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path("c.json")));
  EXPECT_FALSE(std::filesystem::exists(tmp.path("n.json")));
}

}  // namespace
}  // namespace router
