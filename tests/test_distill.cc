// Distillation (router train --teacher): each training target is the label, smoothed, mixed with
// the teachers' averaged calibrated probabilities on that email. With weight 0 it is training
// without teachers, bit for bit; with teachers it stays one model for any thread count; the
// teachers must know the training data's labels; the command line records the teachers' files
// and --config repeats the run byte for byte.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "model/json_format.h"
#include "order_task.h"
#include "test_support.h"
#include "train/teaching.h"
#include "train/trainer.h"

namespace router {
namespace {

using router::test::order_task;
using router::test::quote;
using router::test::run_command;
using router::test::slurp;
using router::test::spit;
using router::test::TempDir;

// The order task's recipe, shortened to 4 epochs for the taught models.
TrainOptions tiny(int threads, uint64_t seed) {
  TrainOptions o = test::order_task_options(threads);
  o.epochs = o.patience = 4;
  o.seed = seed;
  return o;
}

// `router ARGS` run in `tmp`, so that the files it names, and records, are relative.
test::CommandResult router_in(const TempDir& tmp, const std::string& args) {
  return run_command("cd " + quote(tmp.dir()) + " && " + quote(ROUTER_BINARY) + " " + args,
                     tmp.dir());
}

struct Taught {
  std::vector<Example> train = order_task(600, 1), valid = order_task(200, 2);
  std::vector<Model> teachers;
  Teaching teaching;
  Taught() {
    for (uint64_t seed : {7, 8}) {
      TrainOptions o = test::order_task_options(2);  // teachers that have learned the task
      o.seed = seed;
      TrainResult r;
      teachers.push_back(train_model(train, valid, o, {}, r));
    }
    teaching = teach(teachers, {"t7", "t8"}, train, {}, 2);
  }
};

const Taught& taught() {
  static const Taught t;
  return t;
}

// The mean of the teachers' calibrated probabilities, as router batch gives them, in the first
// teacher's label order: one row per training email, each summing to 1.
TEST(Distill, TeachingIsTheTeachersMeanProbabilities) {
  const Taught& t = taught();
  ASSERT_EQ(t.teaching.labels, t.teachers[0].labels());
  ASSERT_EQ(t.teaching.probs.rows(), static_cast<Eigen::Index>(t.train.size()));
  for (size_t i : {0u, 17u, 599u}) {
    const Prediction a = t.teachers[0].predict(t.train[i].text);
    const Prediction b = t.teachers[1].predict(t.train[i].text);
    for (int k = 0; k < 2; ++k) {
      EXPECT_NEAR(t.teaching.probs(static_cast<Eigen::Index>(i), k), (a.probs[k] + b.probs[k]) / 2,
                  1e-6);
    }
    EXPECT_NEAR(t.teaching.probs.row(static_cast<Eigen::Index>(i)).sum(), 1.0, 1e-5);
  }
  EXPECT_GT(teacher_agreement(t.teaching, t.train), 0.9);
}

// Weight 0: the label's target alone, so the same weights as training without teachers.
TEST(Distill, WeightZeroIsTrainingWithoutTeachers) {
  const Taught& t = taught();
  TrainOptions o = tiny(2, 3);
  TrainResult r0, r1;
  const std::string plain = model_to_json(train_model(t.train, t.valid, o, {}, r0));
  o.teacher_weight = 0;
  EXPECT_EQ(model_to_json(train_model(t.train, t.valid, o, {}, r1, &t.teaching)), plain);
}

// With teachers: one model for 1 and 2 threads, another than without them; the recipe names
// the teachers and their weight (and says nothing of them when there are none).
TEST(Distill, IsReproducibleAcrossThreadsAndRecorded) {
  const Taught& t = taught();
  TrainOptions o1 = tiny(1, 3), o2 = tiny(2, 3);
  for (TrainOptions* o : {&o1, &o2}) o->teachers = {"t7.json", "t8.json"};
  TrainResult r0, r1, r2;
  const std::string plain = model_to_json(train_model(t.train, t.valid, tiny(2, 3), {}, r0));
  const std::string one = model_to_json(train_model(t.train, t.valid, o1, {}, r1, &t.teaching));
  const std::string two = model_to_json(train_model(t.train, t.valid, o2, {}, r2, &t.teaching));
  EXPECT_EQ(one, two) << "1 and 2 threads gave different models";
  EXPECT_NE(one, plain);
  const auto j = options_json(r1.options);
  EXPECT_EQ(j["teachers"], nlohmann::json({"t7.json", "t8.json"}));
  EXPECT_EQ(j["teacher_weight"], 0.5);
  EXPECT_FALSE(options_json(r0.options).contains("teachers"));
  EXPECT_FALSE(options_json(r0.options).contains("teacher_weight"));
}

// A teacher of other labels is named; probabilities of the wrong shape and a weight outside
// 0..1 are refused before training.
TEST(Distill, TeachersMustKnowTheTrainingLabels) {
  const Taught& t = taught();
  std::vector<Example> other = t.train;
  for (auto& e : other) e.label = e.label == "refund_first" ? "first" : "second";
  try {
    teach(t.teachers, {"t7.json", "t8.json"}, other, {}, 1);
    ADD_FAILURE() << "a teacher of other labels was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t7.json: a teacher must have the training data's "
                                         "labels (first, second); it has refund_first, "
                                         "replace_first"),
              std::string::npos)
        << e.what();
  }
  TrainResult r;
  Teaching short_one = t.teaching;
  short_one.probs.conservativeResize(10, 2);
  EXPECT_THROW(train_model(t.train, t.valid, tiny(1, 3), {}, r, &short_one), UsageError);
  TrainOptions heavy = tiny(1, 3);
  heavy.teacher_weight = 1.5;
  EXPECT_THROW(train_model(t.train, t.valid, heavy, {}, r, &t.teaching), UsageError);
}

// The command line: --teacher FILE (repeated), its name and SHA-256 in the model's metadata, the
// recipe in metadata.options, which --config repeats byte for byte; a teacher of other labels
// fails naming its file, and nothing is written.
TEST(Distill, TrainRecordsTheTeachersAndConfigRepeatsIt) {
  TempDir tmp;
  std::string data, other;
  for (const Example& e : order_task(200, 5)) {
    data += nlohmann::json{{"text", e.text}, {"label", e.label}}.dump() + "\n";
    other += nlohmann::json{{"text", e.text}, {"label", "x" + e.label}}.dump() + "\n";
  }
  spit(tmp.path("d.jsonl"), data);
  spit(tmp.path("other.jsonl"), other);
  const std::string recipe =
      " --d-model 16 --heads 2 --layers 1 --d-ff 16 --vocab-size 300 --epochs 2 "
      "--batch-size 32 ";
  for (const char* seed : {"1", "2"}) {
    const auto r = router_in(tmp, "train --train d.jsonl --seed " + std::string(seed) + recipe +
                                      "-o t" + seed + ".json");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const auto r = router_in(tmp, "train --train d.jsonl" + recipe +
                                    "--teacher t1.json --teacher t2.json --teacher-weight 0.25 "
                                    "-o m.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("2 teachers: "), std::string::npos) << r.err;
  const auto m = nlohmann::json::parse(slurp(tmp.path("m.json")));
  EXPECT_EQ(m["metadata"]["options"]["teachers"], nlohmann::json({"t1.json", "t2.json"}));
  EXPECT_EQ(m["metadata"]["options"]["teacher_weight"], 0.25);
  ASSERT_EQ(m["metadata"]["teachers"].size(), 2u);
  EXPECT_EQ(m["metadata"]["teachers"][1]["name"], "t2.json");
  EXPECT_EQ(m["metadata"]["teachers"][1]["sha256"].get<std::string>().size(), 64u);
  spit(tmp.path("recipe.json"), m["metadata"]["options"].dump());
  const auto again = router_in(tmp, "train --train d.jsonl -o again.json --config recipe.json");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(slurp(tmp.path("again.json")), slurp(tmp.path("m.json")));

  const auto wrong =
      router_in(tmp, "train --train other.jsonl" + recipe + "--teacher t1.json -o w.json");
  EXPECT_EQ(wrong.code, 3) << wrong.err;
  EXPECT_NE(wrong.err.find("t1.json: a teacher must have the training data's labels"),
            std::string::npos)
      << wrong.err;
  const auto missing =
      router_in(tmp, "train --train d.jsonl" + recipe + "--teacher none.json -o n.json");
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_NE(missing.err.find("none.json"), std::string::npos) << missing.err;
  const auto lone =
      router_in(tmp, "train --train d.jsonl" + recipe + "--teacher-weight 0.3 -o l.json");
  EXPECT_EQ(lone.code, 2) << lone.err;
  EXPECT_NE(lone.err.find("--teacher-weight without --teacher"), std::string::npos) << lone.err;
  spit(tmp.path("broken.json"), "{\"config\": ");
  const auto broken =
      router_in(tmp, "train --train d.jsonl" + recipe + "--teacher broken.json -o b.json");
  EXPECT_EQ(broken.code, 4) << broken.err;  // a bad model file
  EXPECT_NE(broken.err.find("broken.json"), std::string::npos) << broken.err;
  for (const char* out : {"w.json", "n.json", "l.json", "b.json"}) {
    EXPECT_FALSE(std::filesystem::exists(tmp.path(out))) << out;
  }
}

}  // namespace
}  // namespace router
