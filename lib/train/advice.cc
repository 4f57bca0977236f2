#include "train/advice.h"

#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace router {

namespace {

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::vector<std::string> data_warnings(const std::vector<Example>& train,
                                       const std::vector<Example>& valid,
                                       const std::vector<std::string>& listed) {
  std::vector<std::string> out;
  std::map<std::string, int> counts;
  for (const auto& e : train) ++counts[e.label];
  for (const auto& [label, n] : counts) {
    if (n < kFewExamples) {
      out.push_back("label '" + label + "' has " + std::to_string(n) + " training example" +
                    (n == 1 ? "" : "s") + ": the model will rarely predict it (give each label " +
                    std::to_string(kFewExamples) + " or more)");
    }
  }
  for (const auto& label : listed) {
    if (!counts.count(label)) {
      out.push_back("label '" + label +
                    "' is listed in --labels but no training example has it: the model "
                    "will never predict it");
    }
  }
  std::unordered_map<std::string, const Example*> texts;
  for (const auto& e : train) texts.emplace(e.text, &e);
  int repeated = 0;
  std::string first;
  for (const auto& e : valid) {
    auto it = texts.find(e.text);
    if (it == texts.end()) continue;
    if (repeated++ == 0) first = e.where + " is " + it->second->where;
  }
  if (repeated > 0) {
    out.push_back(std::to_string(repeated) + " of " + std::to_string(valid.size()) +
                  " validation examples are also training examples (" + first +
                  "): validation accuracy will look better than the model is");
  }
  return out;
}

std::vector<std::string> training_advice(const TrainResult& r, const TrainOptions& o,
                                         double train_accuracy) {
  std::vector<std::string> out;
  const int epochs = r.options.epochs;
  if (r.best_epoch == epochs && r.epochs_run == epochs) {
    out.push_back(
        "the best epoch was the last one (" + std::to_string(epochs) +
        "): the model may still improve with more epochs, e.g. " +
        (r.budget_shortened
             ? std::string("a longer --time-budget")
             : "--epochs " + std::to_string(2 * epochs) +
                   (o.time_budget > 0 ? " with a --time-budget long enough for them" : "")));
  }
  if (r.rejection && r.in_scope_accuracy_without - r.reject_in_scope_accuracy > 0.05) {
    out.push_back(
        "the --out-of-scope rule sets aside in-scope mail too: on validation, in-scope "
        "accuracy " +
        fixed(r.in_scope_accuracy_without, 3) + " without it, " +
        fixed(r.reject_in_scope_accuracy, 3) +
        " with it; a more accurate model (more data, more epochs) makes it cheaper");
  }
  if (train_accuracy - r.valid_accuracy > 0.15) {
    out.push_back("training accuracy " + fixed(train_accuracy, 3) + " but validation accuracy " +
                  fixed(r.valid_accuracy, 3) +
                  ": the model learns the training examples rather than the labels; more "
                  "examples per label help most, or more --dropout (now " +
                  fixed(o.dropout, 2) + ")");
  }
  if (!r.calibration.applied) {
    out.push_back(
        "temperature scaling skipped: fitted on half of the validation data, it did not lower "
        "the calibration error on the other half (ECE " +
        fixed(r.calibration.check_without, 4) + " -> " + fixed(r.calibration.check_with, 4) +
        "); confidences are the model's own");
  }
  return out;
}

}  // namespace router
