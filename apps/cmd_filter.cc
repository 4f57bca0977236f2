// `router filter`: a mail filter for procmail, maildrop and Sieve (docs/mail-flow.md). One
// message on stdin, the same message on stdout with X-Router-Label and X-Router-Confidence (and
// X-Router-Top-K with -k, X-Router-Rule when a mail rule chose `other`) added at the end of its
// header block. A message is never lost: when it
// cannot be classified, it passes through with X-Router-Error saying why, and the exit code is
// still 0; only failing to read stdin or write stdout is not.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "common.h"

namespace router::app {

namespace {

struct FilterOptions {
  std::string model;
  int k = 0;
  bool no_header_rules = false;
};

void run(const FilterOptions& o) {
  const std::string message((std::istreambuf_iterator<char>(std::cin)),
                            std::istreambuf_iterator<char>());
  if (std::cin.bad()) throw IoError("cannot read standard input");
  std::optional<Model> model;
  const Filtered f = filter_message(
      message, [&]() -> const Model& { return model.emplace(load_model_or_default(o.model)); }, o.k,
      !o.no_header_rules);
  if (!f.error.empty()) spdlog::warn("{}", f.error);
  if (std::fwrite(f.message.data(), 1, f.message.size(), stdout) != f.message.size() ||
      std::fflush(stdout) != 0) {
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
