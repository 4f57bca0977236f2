// "None of these" (Rejection in model/model.h): the threshold learned on validation data
// (choose_rejection), kept in both model formats, applied by the one prediction path, shown by
// classify and batch, scored by eval as in-scope accuracy and out-of-scope recall, and learned by
// `train --out-of-scope`.
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/rng.h"
#include "model/binary_format.h"
#include "model/json_format.h"
#include "model/labelling.h"
#include "test_support.h"
#include "train/calibration.h"
#include "train/trainer.h"

namespace router {
namespace {

using test::quote;
using test::run_router;

Model tiny() { return load_model(test::source_path("tests/fixtures/models/tiny.json")); }

TEST(Rejection, ThresholdCatchesTheMostForAtMostOnePointOfInScopeAccuracy) {
  // In-scope: nine right, one wrong at 0.1 (accuracy 0.9). Out-of-scope at 0.05, 0.15 and 0.25.
  // Below (0.15 + 0.2) / 2, two of three are caught and no right email is lost; catching the
  // third would cost the right one at 0.2 (accuracy 0.8), more than kRejectCost, although in-scope
  // accuracy plus recall would then be higher (0.8 + 1 against 0.9 + 0.67).
  std::vector<std::pair<double, bool>> in = {{0.1, false}, {0.2, true}};
  for (int i = 3; i <= 10; ++i) in.emplace_back(0.1 * i, true);
  const std::vector<std::pair<double, bool>> out = {{0.05, false}, {0.15, false}, {0.25, false}};
  EXPECT_DOUBLE_EQ(choose_rejection(in, out), (0.15 + 0.2) / 2);
  // Mail the model labels out-of-scope itself counts as caught at any threshold: here the one at
  // 0.25, so (0.15 + 0.2) / 2 still catches all there is to catch below it.
  EXPECT_DOUBLE_EQ(choose_rejection(in, {{0.05, false}, {0.15, false}, {0.25, true}}),
                   (0.15 + 0.2) / 2);
  // Out-of-scope mail the model labels itself: a threshold could only cost.
  EXPECT_DOUBLE_EQ(choose_rejection(in, {{0.99, true}}), 0.0);
  // No out-of-scope example: the least confident 5% of the in-scope emails (1 of 20).
  std::vector<std::pair<double, bool>> twenty;
  for (int i = 0; i < 20; ++i) twenty.emplace_back(0.5 + 0.02 * i, true);
  EXPECT_DOUBLE_EQ(choose_rejection(twenty, {}), (0.5 + 0.52) / 2);
}

TEST(Rejection, InScopeProbabilityIsOneMinusTheOutOfScopeLabelsAtTheTemperature) {
  Mat<float> logits(2, 2);
  logits << 0.0f, static_cast<float>(std::log(3.0)), 0.0f, 0.0f;
  const auto p = in_scope_probabilities(logits, 1, 1.0);
  EXPECT_NEAR(p[0], 0.25, 1e-6);  // P(oos) = 3 / (1 + 3)
  EXPECT_NEAR(p[1], 0.5, 1e-6);
  EXPECT_NEAR(in_scope_probabilities(logits, 1, 0.5)[0], 0.1, 1e-6);  // 9 / (1 + 9)
}

TEST(Rejection, BothFormatsKeepItAndLabellingAppliesIt) {
  Model m = tiny();
  m.set_rejection(Rejection{0.9, "none"});
  for (const Model& read : {load_model_from_string(model_to_json(m), "m.json"),
                            model_from_binary(model_to_binary(m), "m.bin")}) {
    ASSERT_TRUE(read.rejection().has_value());
    EXPECT_EQ(read.rejection()->below, 0.9);
    EXPECT_EQ(read.rejection()->label, "none");
    const Email e{"where is my order", ""};
    const Prediction p = label_emails(read, {&e, 1}, {}).front().prediction;
    EXPECT_EQ(p.rejected, p.confidence < 0.9);
    EXPECT_EQ(read.label_of(p), p.rejected ? "none" : read.labels()[p.label]);
  }
  // A model without a rule writes none (its file is as before).
  EXPECT_EQ(model_to_json(tiny()).find("reject_"), std::string::npos);
}

// The in-scope score: 1 - the probability of the rejection label, which must be the model's own.
TEST(Rejection, TheInScopeScoreIsOneMinusTheRejectionLabelsProbability) {
  Model m = tiny();
  const std::string oos = m.labels().back();
  const Email e{"where is my order", ""};
  const Prediction p = label_emails(m, {&e, 1}, {}).front().prediction;
  const double in_scope = 1.0 - p.probs.back();
  for (const double below : {in_scope - 0.01, in_scope + 0.01}) {
    m.set_rejection(Rejection{below, oos, Rejection::Score::kInScope});
    for (const Model& read : {load_model_from_string(model_to_json(m), "m.json"),
                              model_from_binary(model_to_binary(m), "m.bin")}) {
      ASSERT_TRUE(read.rejection().has_value());
      EXPECT_EQ(read.rejection()->score, Rejection::Score::kInScope);
      EXPECT_EQ(label_emails(read, {&e, 1}, {}).front().prediction.rejected, in_scope < below)
          << below;
    }
  }
  EXPECT_NE(model_to_json(m).find("\"reject_by\":\"in_scope\""), std::string::npos);
  // An in-scope rule for a label the model lacks: no model takes it, and neither file format
  // reads it (the files are a good model's, the label renamed; same length for the binary).
  EXPECT_THROW(m.set_rejection(Rejection{0.5, "not_a_label", Rejection::Score::kInScope}),
               ModelError);
  const auto renamed = [&](std::string file) {
    const std::string from = "\"reject_label\":\"" + oos + "\"";
    const size_t at = file.find(from);
    EXPECT_NE(at, std::string::npos);
    file[at + from.size() - 2] ^= 1;  // the label's last letter
    return file;
  };
  try {
    load_model_from_string(renamed(model_to_json(m)), "bad.json");
    ADD_FAILURE() << "accepted an in-scope rule for a label the model lacks";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("/calibration/reject_by"), std::string::npos) << e.what();
  }
  EXPECT_THROW(model_from_binary(renamed(model_to_binary(m)), "bad.bin"), ModelError);
}

TEST(Rejection, BrokenRulesAreRejectedNamingTheField) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(model_to_json(tiny()));
  j["calibration"]["reject_below"] = 1.5;
  j["calibration"]["reject_label"] = "none";
  try {
    load_model_from_string(j.dump(), "bad.json");
    ADD_FAILURE() << "accepted reject_below 1.5";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("/calibration/reject_below"), std::string::npos)
        << e.what();
  }
  j["calibration"].erase("reject_below");
  EXPECT_THROW(load_model_from_string(j.dump(), "bad.json"), ModelError);
}

// The CLI shows the rejection label and scores it: a tiny model that rejects everything below
// 0.999 (its predictions are close to uniform) sends every email to "none".
TEST(Rejection, ClassifyShowsItAndEvalScoresIt) {
  test::TempDir tmp("router_reject");
  Model m = tiny();
  m.set_rejection(Rejection{0.999, "none"});
  save_model(m, tmp.path("m.json"));
  const auto c =
      run_router("classify --json -m " + quote(tmp.path("m.json")) + " 'hello there'", tmp.dir());
  ASSERT_EQ(c.code, 0) << c.err;
  const auto p = nlohmann::json::parse(c.out);
  EXPECT_EQ(p["label"], "none");
  EXPECT_EQ(p["rejected"], true);
  test::spit(tmp.path("d.jsonl"),
             "{\"text\": \"where is my order\", \"label\": \"where_is_order\"}\n"
             "{\"text\": \"what is the weather\", \"label\": \"none\"}\n");
  const auto e = run_router(
      "eval --json -m " + quote(tmp.path("m.json")) + " " + quote(tmp.path("d.jsonl")), tmp.dir());
  ASSERT_EQ(e.code, 0) << e.err;
  const auto r = nlohmann::json::parse(e.out);
  EXPECT_EQ(r["out_of_scope"]["label"], "none");
  EXPECT_EQ(r["out_of_scope"]["recall"], 1.0);
  EXPECT_EQ(r["out_of_scope"]["in_scope_accuracy"], 0.0);
  EXPECT_EQ(r["n_unknown"], 0);
}

// Two labels told apart by a word; out-of-scope mail is about something else.
std::vector<Example> two_labels(int n, uint64_t seed, bool with_out_of_scope) {
  static const char* kTopics[] = {"weather", "football", "recipe", "train", "music", "tax"};
  Rng rng(seed);
  std::vector<Example> out;
  for (int i = 0; i < n; ++i) {
    Example e;
    const int kind = static_cast<int>(rng.below(with_out_of_scope ? 3 : 2));
    const std::string id = std::to_string(rng.below(1000));
    e.text = kind == 0   ? "please refund order " + id
             : kind == 1 ? "where is my order " + id
                         : std::string("tell me about the ") + kTopics[rng.below(6)] + " " + id;
    e.label = kind == 0 ? "refund" : kind == 1 ? "status" : "oos";
    e.where = "data:" + std::to_string(i + 1);
    out.push_back(std::move(e));
  }
  return out;
}

TrainOptions small_options() {
  TrainOptions o = fast_options();
  o.config.d_model = 16, o.config.n_heads = 2, o.config.n_layers = 1, o.config.d_ff = 32;
  o.config.max_len = 32, o.config.vocab_size = 300;
  o.epochs = 3, o.batch_size = 16, o.lr = 1e-2, o.seed = 3, o.threads = 1;
  o.out_of_scope = "oos";
  return o;
}

TEST(Rejection, TrainingLearnsItWithOrWithoutOutOfScopeTrainingMail) {
  const auto valid = two_labels(150, 2, true);
  for (const bool in_training : {true, false}) {
    TrainResult r;
    const Model m = train_model(two_labels(400, 1, in_training), valid, small_options(), {}, r);
    ASSERT_TRUE(m.rejection().has_value()) << in_training;
    EXPECT_EQ(m.rejection()->label, "oos");
    EXPECT_EQ(m.rejection()->below, r.rejection->below);
    EXPECT_GE(r.reject_recall, 0.0) << in_training;
    EXPECT_EQ(options_json(small_options())["out_of_scope"], "oos");
    const bool learned_as_label =
        std::find(m.labels().begin(), m.labels().end(), "oos") != m.labels().end();
    EXPECT_EQ(learned_as_label, in_training);
    // Learned as a label, it is scored by the probability of being in scope.
    EXPECT_EQ(m.rejection()->score,
              in_training ? Rejection::Score::kInScope : Rejection::Score::kConfidence);
  }
  // No out-of-scope example anywhere: the least confident 5% of validation mail.
  TrainResult r;
  const Model m =
      train_model(two_labels(400, 1, false), two_labels(100, 2, false), small_options(), {}, r);
  ASSERT_TRUE(m.rejection().has_value());
  EXPECT_LT(r.reject_recall, 0.0);
}

// Learned from out-of-scope training mail, "none of these" takes two members unless --ensemble
// says otherwise; one model with out-of-scope mail only in validation, with no rule, or with a
// checkpoint (which keeps one run). The count is recorded, so --config repeats it.
TEST(Rejection, OutOfScopeTrainingMailTrainsTwoMembersByDefault) {
  const auto valid = two_labels(150, 2, true);
  const auto members = [&](bool in_training, const TrainOptions& o) {
    TrainResult r;
    const Model m = train_model(two_labels(400, 1, in_training), valid, o, {}, r);
    EXPECT_EQ(r.options.ensemble, m.members());
    const auto recorded = options_json(r.options);
    EXPECT_EQ(recorded.value("ensemble", 1), m.members());
    EXPECT_EQ(recorded.contains("ensemble"), !o.out_of_scope.empty() || m.members() > 1);
    return m.members();
  };
  TrainOptions o = small_options();
  ASSERT_EQ(o.ensemble, 0);
  EXPECT_EQ(members(true, o), kOutOfScopeMembers);
  EXPECT_EQ(members(false, o), 1);
  TrainOptions one = o;
  one.ensemble = 1;
  EXPECT_EQ(members(true, one), 1);
  TrainOptions no_rule = o;
  no_rule.out_of_scope = "";
  EXPECT_EQ(members(true, no_rule), 1);
  test::TempDir tmp("router_oos_members");
  TrainOptions kept = o;
  kept.checkpoint = tmp.path("run.ck");
  EXPECT_EQ(members(true, kept), 1);
}

// With no --out-of-scope, a label named oos is "none of these", as if named; '' turns that off,
// and the model records either choice, so --config repeats it.
TEST(Rejection, ALabelNamedOosIsNoneOfTheseUnlessTurnedOff) {
  test::TempDir tmp("router_oos_name");
  for (const auto& [file, n, seed] : {std::tuple{"train.jsonl", 400, 1}, {"valid.jsonl", 150, 2}}) {
    std::string lines;
    for (const Example& e : two_labels(n, seed, true)) {
      lines += nlohmann::json{{"text", e.text}, {"label", e.label}}.dump() + "\n";
    }
    test::spit(tmp.path(file), lines);
  }
  const std::string data = "train --train " + quote(tmp.path("train.jsonl")) + " --valid " +
                           quote(tmp.path("valid.jsonl")) +
                           " --preset fast --d-model 16 --heads 2 --layers 1 --d-ff 32 "
                           "--max-len 32 --vocab-size 300 --epochs 3 --lr 0.01 --threads 1 -o ";
  const auto model = [&](const std::string& name) {
    return nlohmann::json::parse(test::slurp(tmp.path(name)));
  };
  const auto by_name = run_router(data + quote(tmp.path("named.json")), tmp.dir());
  ASSERT_EQ(by_name.code, 0) << by_name.err;
  EXPECT_NE(by_name.err.find("label 'oos' is \"none of these\" by its name"), std::string::npos)
      << by_name.err;
  EXPECT_EQ(model("named.json")["calibration"]["reject_label"], "oos");
  EXPECT_EQ(model("named.json")["metadata"]["options"]["out_of_scope"], "oos");
  EXPECT_EQ(model("named.json")["metadata"]["options"]["ensemble"], kOutOfScopeMembers);
  EXPECT_NE(by_name.err.find("'oos' in the training data: 2 members"), std::string::npos)
      << by_name.err;
  // The same file as naming the label.
  const auto named =
      run_router(data + quote(tmp.path("explicit.json")) + " --out-of-scope oos", tmp.dir());
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(test::slurp(tmp.path("explicit.json")), test::slurp(tmp.path("named.json")));

  const auto off = run_router(data + quote(tmp.path("off.json")) + " --out-of-scope ''", tmp.dir());
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_FALSE(model("off.json")["calibration"].contains("reject_label"));
  EXPECT_EQ(model("off.json")["metadata"]["options"]["out_of_scope"], "");
  EXPECT_FALSE(model("off.json")["metadata"]["options"].contains("ensemble"));
  test::spit(tmp.path("off-options.json"), model("off.json")["metadata"]["options"].dump());
  const auto again = run_router(
      data + quote(tmp.path("again.json")) + " --config " + quote(tmp.path("off-options.json")),
      tmp.dir());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(test::slurp(tmp.path("again.json")), test::slurp(tmp.path("off.json")));
}

}  // namespace
}  // namespace router
