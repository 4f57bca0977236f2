// `router eval`: labels a labelled data set and reports accuracy, the scikit-learn style
// classification report, the confusion matrix, swap-pair accuracy, calibration error and, with a
// threshold, coverage; as text or as one JSON object (--json). Predictions are the same as
// `router batch` gives for the same records: every email goes through the model on its own.
// The data set is read whole (evaluation sets are small); `router batch` streams.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "analysis/metrics.h"
#include "base/errors.h"
#include "base/signals.h"
#include "common.h"
#include "input/dataset.h"
#include "progress.h"

namespace router::app {

namespace {

struct EvalOptions {
  std::string data;
  std::string model;
  bool json = false;
  int k = 0;
  double min_confidence = -1;  // < 0: off
  int threads = 0;
  Fields fields;
};

void run(const EvalOptions& o) {
  const Model model = load_model_or_default(o.model);
  const std::vector<Example> examples = read_examples(o.data, true, o.fields);
  const int n = static_cast<int>(examples.size());

  std::vector<Prediction> preds;
  preds.reserve(n);
  ProgressBar bar("  eval");
  for (int lo = 0; lo < n; lo += kLabelChunk) {
    check_interrupted();
    const int hi = std::min<int>(n, lo + kLabelChunk);
    std::vector<Email> emails;
    for (int i = lo; i < hi; ++i) emails.push_back({examples[i].text, ""});
    std::vector<Labelled> chunk = label_emails(model, emails, {true, o.threads});
    for (int i = lo; i < hi; ++i) {
      Labelled& l = chunk[i - lo];
      if (l.problem != Problem::kNone) {
        throw InputError(examples[i].where + ": " + problem_text(l.problem, false, o.fields.text));
      }
      preds.push_back(std::move(l.prediction));
    }
    bar.update(hi, n);
  }
  bar.clear();

  const std::optional<double> threshold =
      o.min_confidence >= 0 ? std::optional<double>(o.min_confidence) : std::nullopt;
  MetricsAccumulator metrics = model_metrics(model, threshold, o.k);
  int truncated = 0;
  for (int i = 0; i < n; ++i) {
    const Prediction& p = preds[i];
    const int t = metrics.index_of(examples[i].label);
    metrics.add(examples[i].label, scored_label(model, p), p.confidence, examples[i].pair,
                truth_rank(p, t));
    truncated += p.truncated;
  }
  const Evaluation e = metrics.finish();
  if (e.n_unknown > 0) {
    std::string names;
    for (const auto& [label, count] : e.unknown_labels) {
      names += (names.empty() ? "\"" : ", \"") + label + "\" (" + std::to_string(count) + ")";
    }
    spdlog::warn("{} of {} records have a label the model lacks and are not scored: {}",
                 e.n_unknown, n, names);
  }
  if (e.n == 0) {
    throw InputError(o.data + ": no record has a label the model knows; its labels are " +
                     nlohmann::json(model.labels()).dump());
  }
  if (truncated > 0) {
    spdlog::info("{} email(s) longer than max_len = {} tokens: only the first {} were used",
                 truncated, model.config().max_len, model.config().max_len);
  }
  const std::string out = o.json ? evaluation_json(e).dump() + "\n" : evaluation_text(e);
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand("eval", "Measure a model on labelled records");
  cmd->add_option(
         "data", o->data,
         "JSON Lines, a JSON array of {\"text\", \"label\"[, \"pair\"]}, CSV, TSV or fastText "
         "lines ('-': stdin)")
      ->required();
  add_model_option(*cmd, o->model);
  add_field_options(*cmd, o->fields);
  cmd->add_flag("--json", o->json, "Print one JSON object instead of the text report");
  add_top_k_option(*cmd, o->k, "Also report top-K accuracy (true label among the K best)");
  add_min_confidence_option(*cmd, o->min_confidence,
                            "Also report coverage (share with confidence >= T) and accuracy on it");
  add_threads_option(*cmd, o->threads);
  cmd->footer(
      "Metrics use the model's best label (--min-confidence only adds the coverage lines).\n"
      "Per-label rows and macro/weighted averages cover the labels that occur in the data or\n"
      "in the predictions, as scikit-learn's classification_report does; the confusion matrix\n"
      "has every model label. Records that share a \"pair\" id form a group, right only when\n"
      "every member is right (a pair id on one record only is ignored). ECE: 15 equal-width\n"
      "bins. Records whose label the model does not have are not scored: they are counted and\n"
      "named in a warning (and in --json: n_unknown, unknown_labels), never counted as wrong.\n"
      "JSON keys: n, accuracy, macro_f1, weighted_f1, pair_accuracy (null without pairs),\n"
      "pair_groups, pair_groups_right, ece, labels, per_label, macro_avg, weighted_avg,\n"
      "confusion ([true][predicted], in `labels` order), coverage, top_k_accuracy, n_unknown,\n"
      "unknown_labels.\n");
  // -v / -q work after the subcommand too (`router batch in.jsonl -v`): the top level takes them.
  cmd->fallthrough();
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
