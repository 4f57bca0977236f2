// What the subcommands share: the -m/--model option and its default (the built-in model),
// output helpers, and the registration functions each command file provides.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "analysis/metrics.h"
#include "base/files.h"
#include "input/dataset.h"
#include "input/mail.h"
#include "model/labelling.h"
#include "model/model.h"

namespace router::app {

// Adds -m/--model to `cmd`, bound to `path`.
void add_model_option(CLI::App& cmd, std::string& path);
// Loads `path`, or the built-in model when it is empty.
Model load_model_or_default(const std::string& path);

// What the model sees of one email given whole (a file, stdin, an argument), for every command:
// a message (RFC 5322 headers, or `format` "eml") parsed as input/mail.h says, else the text as
// it is (`format` "text" never parses).
MailText email_text(std::string raw, const std::string& where, const std::string& format = "auto");

// The options several commands share, each defined here once. --threads: 0 = all cores, and
// the output never depends on it. -k/--top-k: 1 to 10,000, `help` saying what it does there.
// --min-confidence: 0 to 1, `help` saying what happens below it.
void add_threads_option(CLI::App& cmd, int& threads);
void add_top_k_option(CLI::App& cmd, int& k, const std::string& help);
void add_min_confidence_option(CLI::App& cmd, double& min_confidence, const std::string& help);
// The label "needs_review", which commands with --min-confidence give a prediction below it.
inline constexpr const char* kNeedsReview = "needs_review";
// True when `min_confidence` is set (>= 0) and `p`, chosen by the model rather than a mail rule,
// is less confident.
bool needs_review(const Prediction& p, double min_confidence);
// The label to show for `p`: "needs_review" as above, the model's rejection label for a rejected
// prediction ("none of these"), else the predicted label.
std::string shown_label(const Model& model, const Prediction& p, double min_confidence = -1);

// The labels a prediction can be shown with: the model's, and its rejection label too when that
// is not one of them (last).
std::vector<std::string> scored_labels(const Model& model);
// What eval and batch score with: scored_labels, the rejection label scored as the out-of-scope
// label (Evaluation::out_of_scope).
MetricsAccumulator model_metrics(const Model& model, std::optional<double> min_confidence, int k);
// The index of p's shown label (Model::label_of) among scored_labels.
int scored_label(const Model& model, const Prediction& p);
// The rank of the true label `t` (an index among those labels) in p, or -1 when the model has
// no such label (the rejection label of its own).
int truth_rank(const Prediction& p, int t);

// Adds --text-field and --label-field to `cmd`, bound to `fields`.
void add_field_options(CLI::App& cmd, Fields& fields);

// Adds --no-header-rules to `cmd`, bound to `off`.
void add_header_rules_option(CLI::App& cmd, bool& off);
// One message through label_emails (model/labelling.h), for the commands that take one at a
// time (filter, route, serve). A message that cannot be labelled is an InputError naming `where`.
Prediction label_message(const Model& model, const MailText& mail, bool header_rules,
                         const std::string& where);
// What `router filter` writes for `message`, and what `router serve` answers on POST /filter:
// the message with the verdict's X-Router-* header fields (input/headers.h), X-Router-Top-K too
// when k > 0. `model` is asked for only once the message has parsed. Whatever fails passes the
// message through with X-Router-Error instead, so that a filter never loses a message.
struct Filtered {
  std::string message;
  int label = -1;     // scored_label of the verdict; -1 when it failed
  std::string error;  // why it failed
};
Filtered filter_message(const std::string& message, const std::function<const Model&()>& model,
                        int k, bool header_rules);
// Why label_emails gave no prediction, in the words of a message (`mail`) or of a record whose
// text is in the member `field`.
std::string problem_text(Problem problem, bool mail, const std::string& field = "text");

// {"label": ..., "confidence": ..., "top_k": [{"label": ..., "score": ...}, ...]}, k best first,
// then "truncated": true when the email had more tokens than the model reads (max_len),
// "rule": "..." when a mail rule, not the model, chose the label, and "rejected": true when the
// label is the model's rejection label (the confidence is then the best guess's, below its bar).
nlohmann::json prediction_json(const Model& model, const Prediction& p, int k);
// The same object as compact JSON text, each number the shortest decimal that reads back to the
// same float (0.9f prints as 0.9). nlohmann would print the float widened to a double, and its
// double printer is not always shortest. `label` replaces the predicted label when not empty.
std::string prediction_text(const Model& model, const Prediction& p, int k,
                            const std::string& label = "");
// A batch record with `prediction` (prediction_text) in place of its "prediction" member, or
// appended at the end; every other member as it was, in order. What batch and serve write.
std::string record_with_prediction(nlohmann::ordered_json& value, const std::string& prediction);
// A record that could not be labelled: the record as read ({} if it was not an object), without
// "prediction", with "error" saying why.
std::string record_with_error(nlohmann::ordered_json value, const std::string& error);
// The shortest decimal that reads back to the same float.
std::string float_text(float v);
// That decimal as a double, for nlohmann::json: 0.9f is stored as 0.9, not 0.8999999761581421.
double float_value(float v);
// Indices of the k most probable labels, best first (ties: lower index first).
std::vector<int> top_k(const Prediction& p, int k);
// Fixed decimals, e.g. format_fixed(0.98765, 4) == "0.9877".
std::string format_fixed(double v, int decimals);

void add_classify_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_positions_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_batch_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_tokenize_command(CLI::App& app);
void add_filter_command(CLI::App& app);
void add_route_command(CLI::App& app);
void add_serve_command(CLI::App& app);

}  // namespace router::app
