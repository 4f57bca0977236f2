// Training for anyone's data: records whose text and label live under other names
// (--text-field, --label-field, dotted paths) in every format, the warnings said before and after
// training (train/advice.h), and temperature scaling applied only when it lowers the calibration
// error on validation data it was not fitted on (train/calibration.h).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "input/dataset.h"
#include "test_support.h"
#include "train/advice.h"
#include "train/calibration.h"
#include "train/trainer.h"

namespace {

using namespace router;
using router::test::quote;
using router::test::run_router;
using router::test::spit;
using router::test::TempDir;

std::vector<Example> examples(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<Example> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    out.push_back({rows[i].first, rows[i].second, "", "f:" + std::to_string(i + 1)});
  }
  return out;
}

TEST(Fields, DottedPathsInJsonAndOtherColumnNamesInCsvTsvAndFastText) {
  TempDir tmp;
  const Fields fields{"message.body", "meta.intent"};
  spit(
      tmp.path("a.jsonl"),
      R"({"message": {"body": "where is my cake"}, "meta": {"intent": "status"}})"
      "\n"
      R"({"message.body": "a member named with a dot comes first", "message": {"body": "no"}, "meta": {"intent": "x"}})"
      "\n");
  auto a = read_examples(tmp.path("a.jsonl"), true, fields);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].text, "where is my cake");
  EXPECT_EQ(a[0].label, "status");
  EXPECT_EQ(a[1].text, "a member named with a dot comes first");

  spit(tmp.path("b.csv"), "id,body,intent\n1,\"refund, please\",refund\n");
  auto b = read_examples(tmp.path("b.csv"), true, {"body", "intent"});
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].text, "refund, please");
  EXPECT_EQ(b[0].label, "refund");

  spit(tmp.path("c.tsv"), "body\tintent\ncancel it\tcancel\n");
  EXPECT_EQ(read_examples(tmp.path("c.tsv"), true, {"body", "intent"})[0].label, "cancel");

  spit(tmp.path("d.txt"), "__label__status where is it\n");
  auto d = read_examples(tmp.path("d.txt"), true, {"body", "intent"});
  EXPECT_EQ(d[0].text, "where is it");
  EXPECT_EQ(d[0].label, "status");
}

TEST(Fields, AMissingFieldIsNamedWithTheMembersTheRecordHas) {
  TempDir tmp;
  spit(tmp.path("a.jsonl"), R"({"body": "hello", "intent": "x"})"
                            "\n");
  try {
    read_examples(tmp.path("a.jsonl"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              tmp.path("a.jsonl") + ":1: missing \"text\" (the record has: body, intent)");
  }
  spit(tmp.path("b.csv"), "body,intent\nhi,x\n");
  try {
    read_examples(tmp.path("b.csv"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("names no \"text\" column (it has: body, intent); "
                                         "--text-field names another"),
              std::string::npos)
        << e.what();
  }
}

TEST(Fields, TrainEvalAndBatchTakeTextFieldAndLabelField) {
  TempDir tmp;
  std::string data;
  const char* rows[][2] = {{"where is my order", "status"},
                           {"my parcel has not arrived", "status"},
                           {"refund my money please", "refund"},
                           {"i want a refund for the cake", "refund"}};
  for (int i = 0; i < 6; ++i) {
    for (const auto& r : rows) {
      data += nlohmann::json{{"m", {{"body", std::string(r[0]) + " " + std::to_string(i)}}},
                             {"intent", r[1]}}
                  .dump() +
              "\n";
    }
  }
  spit(tmp.path("d.jsonl"), data);
  const std::string fields = " --text-field m.body --label-field intent";
  auto r = run_router(
      "train --train " + quote(tmp.path("d.jsonl")) + " -o " + quote(tmp.path("m.json")) +
          " --epochs 2 --d-model 16 --heads 2 --layers 1 --d-ff 16 --vocab-size 300" + fields,
      tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_router("eval -m " + quote(tmp.path("m.json")) + " " + quote(tmp.path("d.jsonl")) + fields,
                 tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("accuracy"), std::string::npos) << r.out;
  r = run_router(
      "batch -m " + quote(tmp.path("m.json")) + " " + quote(tmp.path("d.jsonl")) + fields,
      tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = router::test::parse_jsonl(r.out);
  ASSERT_EQ(out.size(), 24u);
  EXPECT_TRUE(out[0].contains("prediction"));
  EXPECT_NE(r.err.find("evaluation of the 24 labelled records"), std::string::npos) << r.err;
}

TEST(Advice, WarnsOfRareLabelsListedButAbsentLabelsAndValidationInTraining) {
  const auto train = examples({{"a", "x"},
                               {"b", "x"},
                               {"c", "x"},
                               {"d", "x"},
                               {"e", "x"},
                               {"only one", "rare"},
                               {"same text", "x"}});
  const auto valid = examples({{"same text", "x"}, {"new text", "x"}});
  const auto w = data_warnings(train, valid, {"x", "rare", "absent"});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0],
            "label 'rare' has 1 training example: the model will rarely predict it (give "
            "each label 5 or more)");
  EXPECT_NE(w[1].find("label 'absent' is listed in --labels but no training example has it"),
            std::string::npos);
  EXPECT_EQ(w[2],
            "1 of 2 validation examples are also training examples (f:1 is f:7): "
            "validation accuracy will look better than the model is");
  EXPECT_TRUE(data_warnings(examples({{"a", "x"}, {"b", "x"}, {"c", "x"}, {"d", "x"}, {"e", "x"}}),
                            examples({{"f", "x"}}), {})
                  .empty());
}

TEST(Advice, SaysWhatToTryNextAfterTraining) {
  TrainOptions o;
  o.epochs = 10;
  TrainResult r;
  r.options = o;
  r.best_epoch = 10;
  r.epochs_run = 10;
  r.valid_accuracy = 0.6;
  r.calibration.applied = false;
  const auto a = training_advice(r, o, 0.99);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_NE(a[0].find("the best epoch was the last one (10)"), std::string::npos) << a[0];
  EXPECT_NE(a[0].find("--epochs 20"), std::string::npos) << a[0];
  EXPECT_NE(a[1].find("training accuracy 0.990 but validation accuracy 0.600"), std::string::npos);
  EXPECT_NE(a[2].find("temperature scaling skipped"), std::string::npos);
  r.best_epoch = 4;
  r.valid_accuracy = 0.95;
  r.calibration.applied = true;
  EXPECT_TRUE(training_advice(r, o, 0.97).empty());
  // A rejection rule that costs in-scope mail says so; a time budget's plan is the last epoch.
  r.rejection = Rejection{0.6, "oos"};
  r.in_scope_accuracy_without = 0.9, r.reject_in_scope_accuracy = 0.8;
  const auto costly = training_advice(r, o, 0.97);
  ASSERT_EQ(costly.size(), 1u);
  EXPECT_NE(costly[0].find("in-scope accuracy 0.900 without it, 0.800 with it"), std::string::npos)
      << costly[0];
  r.rejection.reset();
  o.time_budget = 60, o.epochs = 10000;
  r.options = o;
  r.options.epochs = r.epochs_run = r.best_epoch = 12;
  r.budget_shortened = true;
  const auto budget = training_advice(r, o, 0.97);
  ASSERT_EQ(budget.size(), 1u);
  EXPECT_NE(budget[0].find("the best epoch was the last one (12)"), std::string::npos) << budget[0];
  EXPECT_NE(budget[0].find("a longer --time-budget"), std::string::npos) << budget[0];
  // A budget that ran every epoch asked for (here spent on members): more epochs, and the time.
  r.budget_shortened = false;
  const auto whole = training_advice(r, o, 0.97);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_NE(whole[0].find("--epochs 24 with a --time-budget long enough for them"),
            std::string::npos)
      << whole[0];
}

// Logits that say `p` for the first label with the truth being label `y`.
Mat<float> confident_rows(const std::vector<float>& margins) {
  Mat<float> m(static_cast<int>(margins.size()), 2);
  for (size_t i = 0; i < margins.size(); ++i) m.row(static_cast<int>(i)) << margins[i], 0.0f;
  return m;
}

TEST(Calibration, TemperatureIsAppliedOnlyWhenItHelpsOnRowsItWasNotFittedOn) {
  // Overconfident everywhere (margin 6, about 0.998) but right 70% of the time: scaling helps.
  std::vector<float> margins(40, 6.0f);
  std::vector<int> targets;
  for (int i = 0; i < 40; ++i) targets.push_back((i / 2) % 10 < 7 ? 0 : 1);
  const TemperatureChoice helps = choose_temperature(confident_rows(margins), targets);
  EXPECT_TRUE(helps.applied);
  EXPECT_GT(helps.temperature, 1.5);
  EXPECT_LT(helps.check_with, helps.check_without);
  EXPECT_DOUBLE_EQ(helps.temperature, fit_temperature(confident_rows(margins), targets));
  // Even rows all right, odd rows all wrong: what the even rows teach hurts the odd ones.
  std::vector<int> split;
  for (int i = 0; i < 40; ++i) split.push_back(i % 2);
  const TemperatureChoice hurts =
      choose_temperature(confident_rows(std::vector<float>(40, 1.0f)), split);
  EXPECT_FALSE(hurts.applied);
  EXPECT_EQ(hurts.temperature, 1.0);
  EXPECT_GE(hurts.check_with, hurts.check_without);
  // Too few rows to judge.
  EXPECT_FALSE(choose_temperature(confident_rows({3, 3, 3}), {0, 1, 0}).applied);
}

TEST(Advice, TrainPrintsTheWarnings) {
  TempDir tmp;
  std::string data;
  for (int i = 0; i < 8; ++i) {
    data += nlohmann::json{{"text", "where is my order " + std::to_string(i)}, {"label", "status"}}
                .dump() +
            "\n";
  }
  data += R"({"text": "refund please", "label": "refund"})"
          "\n";
  spit(tmp.path("d.jsonl"), data);
  const auto r = run_router("train --train " + quote(tmp.path("d.jsonl")) + " --valid " +
                                quote(tmp.path("d.jsonl")) + " -o " + quote(tmp.path("m.json")) +
                                " --epochs 1 --d-model 16 --heads 2 --layers 1 --d-ff 16 "
                                "--vocab-size 300 --labels refund,status,cancel",
                            tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* says : {"label 'refund' has 1 training example",
                           "label 'cancel' is listed in --labels but no training example has it",
                           "9 of 9 validation examples are also training examples",
                           "the best epoch was the last one (1)"}) {
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << r.err;
  }
}

// n JSON Lines records, "status" and "refund" in turn.
std::string status_or_refund(int n) {
  std::string data;
  for (int i = 0; i < n; ++i) {
    data += nlohmann::json{{"text", (i % 2 ? "where is my order " : "refund my order ") +
                                        std::to_string(i)},
                           {"label", i % 2 ? "status" : "refund"}}
                .dump() +
            "\n";
  }
  return data;
}

// --time-budget plans the epochs (and the members of an ensemble) from a probe of the machine's
// speed and records them, so that metadata.options as a --config file repeats the run byte for
// byte; durations in s, m, h.
TEST(TimeBudget, PlansTheEpochsAndRecordsThemForConfig) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), status_or_refund(300));
  const std::string small = " --d-model 16 --heads 2 --layers 1 --d-ff 16 --vocab-size 300 ";
  const auto r = run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                                quote(tmp.path("m.json")) + small + "--time-budget 2s --epochs 7",
                            tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("time budget 2s: an epoch takes about"), std::string::npos) << r.err;
  const auto model = nlohmann::json::parse(router::test::slurp(tmp.path("m.json")));
  EXPECT_EQ(model["config"]["max_len"], 64) << "short emails: the smallest max_len from the data";
  EXPECT_EQ(model["metadata"]["options"]["max_len"], 64);
  const int epochs = model["metadata"]["options"]["epochs"].get<int>();
  EXPECT_GE(epochs, 1);
  EXPECT_LE(epochs, 7) << "--epochs caps the plan";
  spit(tmp.path("recipe.json"), model["metadata"]["options"].dump());
  const auto again =
      run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                     quote(tmp.path("again.json")) + " --config " + quote(tmp.path("recipe.json")),
                 tmp.dir());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(router::test::slurp(tmp.path("again.json")), router::test::slurp(tmp.path("m.json")));
  // A budget never lengthens a run: an hour plans the defaults' epochs, not more, and spends
  // the rest on an ensemble of kBudgetMembers such runs, unless --ensemble says how many.
  const auto hour =
      run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                     quote(tmp.path("h.json")) + small + "--batch-size 64 --time-budget 1h",
                 tmp.dir());
  ASSERT_EQ(hour.code, 0) << hour.err;
  const auto h = nlohmann::json::parse(router::test::slurp(tmp.path("h.json")));
  EXPECT_EQ(h["metadata"]["options"]["epochs"], kDefaultEpochs);
  EXPECT_EQ(h["metadata"]["options"]["ensemble"], kBudgetMembers);
  EXPECT_EQ(h["members"].size(), static_cast<size_t>(kBudgetMembers - 1));
  EXPECT_NE(hour.err.find("so " + std::to_string(kBudgetMembers) + " members of 80 epochs"),
            std::string::npos)
      << hour.err;
  const auto given = run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                                    quote(tmp.path("g.json")) + small +
                                    "--batch-size 64 --time-budget 1h --ensemble 1",
                                tmp.dir());
  ASSERT_EQ(given.code, 0) << given.err;
  const auto g = nlohmann::json::parse(router::test::slurp(tmp.path("g.json")));
  EXPECT_FALSE(g["metadata"]["options"].contains("ensemble"));
  EXPECT_FALSE(g.contains("members"));
  // A checkpoint keeps one run's state, so a budget with one plans one run.
  const auto kept = run_router(
      "train --train " + quote(tmp.path("d.jsonl")) + " -o " + quote(tmp.path("k.json")) + small +
          "--batch-size 64 --time-budget 1h --checkpoint " + quote(tmp.path("k.ck")),
      tmp.dir());
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_FALSE(nlohmann::json::parse(router::test::slurp(tmp.path("k.json"))).contains("members"));
  for (const char* bad : {"0", "15x", "-3m", "m"}) {
    const auto b = run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                                  quote(tmp.path("b.json")) + " --time-budget " + quote(bad),
                              tmp.dir());
    EXPECT_EQ(b.code, 2) << bad;
    EXPECT_NE(b.err.find("expected a duration such as 900, 90s, 15m or 2h"), std::string::npos)
        << b.err;
  }
}

// --preset fills in what neither the flags nor --config give; metadata.options records the
// result. accurate is the defaults; fast the small recipe (fast_options). An unknown name is
// refused with the names there are.
TEST(Preset, FillsInWhatTheFlagsAndConfigDoNotGive) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), status_or_refund(40));
  spit(tmp.path("c.json"), R"({"dropout": 0.3})");
  const auto options_of = [&](const std::string& name, const std::string& args) {
    const auto r =
        run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " + quote(tmp.path(name)) +
                       " --epochs 1 --d-model 16 --heads 2 " + "--d-ff 16 --vocab-size 300 " + args,
                   tmp.dir());
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(router::test::slurp(tmp.path(name)))["metadata"]["options"];
  };
  const auto o = options_of("m.json", "--config " + quote(tmp.path("c.json")) + " --preset fast");
  EXPECT_EQ(o["epochs"], 1) << "a flag wins";
  EXPECT_EQ(o["d_model"], 16);
  EXPECT_EQ(o["dropout"], 0.3) << "--config wins over the preset";
  EXPECT_EQ(o["token_dropout"], 0) << "from the preset";
  EXPECT_EQ(o["ema"], 0);
  EXPECT_EQ(o["batch_size"], 32);
  EXPECT_EQ(o, options_json([] {
              TrainOptions f = fast_options();
              f.config.d_model = 16, f.config.n_heads = 2, f.config.d_ff = 16;
              f.config.vocab_size = 300, f.epochs = 1, f.dropout = 0.3;
              f.config.max_len = 64;  // from the data
              return f;
            }()));
  EXPECT_EQ(options_of("a.json", "--preset accurate"), options_of("d.json", ""));
  const auto bad = run_router("train --train " + quote(tmp.path("d.jsonl")) + " -o " +
                                  quote(tmp.path("b.json")) + " --preset fastest",
                              tmp.dir());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--preset fastest: no such preset; there are accurate, fast"),
            std::string::npos)
      << bad.err;
}

// Without --max-len, the 99th percentile of the training emails' token counts, rounded up to a
// power of two: 120-word emails need 128 tokens or more, and one much longer email does not
// raise it.
TEST(MaxLen, ComesFromTheData) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (int i = 0; i < 200; ++i) {
    std::string text;
    for (int w = 0; w < 120; ++w) text += (w ? " word" : "start") + std::to_string((i + w) % 50);
    rows.emplace_back(text, i % 2 ? "a" : "b");
  }
  std::string huge;
  for (int w = 0; w < 3000; ++w) huge += " x" + std::to_string(w);
  rows.emplace_back(huge, "a");
  TrainOptions o;
  o.config.d_model = 16, o.config.n_heads = 2, o.config.n_layers = 1, o.config.d_ff = 16;
  o.config.vocab_size = 400, o.epochs = 1, o.threads = 1;
  ASSERT_EQ(o.config.max_len, 0) << "the default is from the data";
  TrainResult r;
  const Model m = train_model(examples(rows), examples({rows[0], rows[1]}), o, {}, r);
  EXPECT_EQ(m.config().max_len, r.options.config.max_len);
  EXPECT_GE(r.options.config.max_len, 128);
  EXPECT_LE(r.options.config.max_len, 512);
  EXPECT_EQ(r.options.config.max_len & (r.options.config.max_len - 1), 0)
      << r.options.config.max_len << " is a power of two";
}

}  // namespace
