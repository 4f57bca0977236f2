// `router filter`: a mail filter for procmail, maildrop and Sieve (docs/mail-flow.md). One
// message on stdin, the same message on stdout with X-Router-Label and X-Router-Confidence (and
// X-Router-Top-K with -k, X-Router-Rule when a mail rule chose `other`) added at the end of its
// header block. A message is never lost: when it
// cannot be classified, it passes through with X-Router-Error saying why, and the exit code is
// still 0; only failing to read stdin or write stdout is not.
#include <cstdio>
#include <iostream>
#include <iterator>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "common.h"
#include "input/headers.h"
#include "input/mail.h"

namespace router::app {

namespace {

struct FilterOptions {
  std::string model;
  int k = 0;
  bool no_header_rules = false;
};

// The verdict's header fields for `message`; throws whatever classifying it throws.
std::vector<std::string> verdict(const FilterOptions& o, const std::string& message) {
  const MailText mail = parse_message(message, "the message");
  const Model model = load_model_or_default(o.model);
  const Prediction p = label_message(model, mail, !o.no_header_rules, "the message");
  std::vector<std::string> fields = {"X-Router-Label: " + model.label_of(p),
                                     "X-Router-Confidence: " + format_fixed(p.confidence, 4)};
  if (!p.rule.empty()) fields.push_back("X-Router-Rule: " + header_value(p.rule));
  if (o.k > 0) {
    std::string top;
    for (int i : top_k(p, o.k)) {
      top += (top.empty() ? "" : ", ") + model.labels()[i] + " " + format_fixed(p.probs[i], 4);
    }
    fields.push_back("X-Router-Top-K: " + top);
  }
  return fields;
}

void run(const FilterOptions& o) {
  const std::string message((std::istreambuf_iterator<char>(std::cin)),
                            std::istreambuf_iterator<char>());
  if (std::cin.bad()) throw IoError("cannot read standard input");
  std::vector<std::string> fields;
  try {
    fields = verdict(o, message);
  } catch (const std::exception& e) {  // a filter passes every message through
    spdlog::warn("{}", e.what());
    fields = {"X-Router-Error: " + header_value(e.what())};
  }
  const std::string out = stamp_headers(message, "X-Router-", fields);
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    throw IoError("cannot write to standard output");
  }
}

}  // namespace

void add_filter_command(CLI::App& app) {
  auto opts = std::make_shared<FilterOptions>();
  auto* cmd = app.add_subcommand(
      "filter", "Mail filter: a message on stdin, the same message with X-Router-* headers out");
  add_model_option(*cmd, opts->model);
  add_top_k_option(*cmd, opts->k, "Also add X-Router-Top-K with the K best labels");
  add_header_rules_option(*cmd, opts->no_header_rules);
  cmd->footer(
      "Exit 0 for every message: one that cannot be classified passes through unchanged with "
      "X-Router-Error. Headers named X-Router-* already in the message are removed first. "
      "Recipes for procmail, maildrop and Sieve: docs/mail-flow.md.");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
