// The one prediction path: every command that labels email (classify, eval, batch, route, filter,
// serve) hands its emails to label_emails. An email's result is the same bits whatever else is
// in the call and whatever the thread count: emails of similar length share a forward pass, and
// every product sums each element in one fixed chain (docs/architecture.md), so an email's logits
// do not depend on its neighbours. tests/test_prediction_path.cc compares every command's output.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace router {

struct Email {
  std::string_view text;  // what the model reads (for a message, MailText::text)
  // MailText::rule for a message: a header marking automatic or bulk mail, or "no text"; ""
  // for plain text and for a message no rule matches.
  std::string_view rule;
};

// Why an email got no prediction.
enum class Problem {
  kNone,
  kNoText,   // a message with neither text nor subject, and the model has no `other` label
  kNoWords,  // text with no tokens (empty or white space only)
};

struct Labelled {
  Prediction prediction;  // meaningful when problem is kNone
  Problem problem = Problem::kNone;
};

struct LabelOptions {
  // false: a header rule is ignored and the model reads the message; a message with no text at
  // all still goes to `other`.
  bool header_rules = true;
  int threads = 0;  // 0: all cores
};

// How many records a command reading a stream hands over at once: enough to keep both cores
// busy, few enough that memory stays flat for any input size.
inline constexpr size_t kLabelChunk = 1024;

// Labels `emails`, in input order. A message a rule routes to `other` (when the model has that
// label) gets confidence 1 and the rule named in Prediction::rule; the rest go through the model,
// and its rejection rule, if it has one, marks the ones below its threshold rejected.
std::vector<Labelled> label_emails(const Model& model, std::span<const Email> emails,
                                   const LabelOptions& options);

}  // namespace router
