// router's subcommands. `serve` is listed here (for --help, the man page and completion) and runs
// router-serve (apps/serve_commands.cc).
#include "commands.h"

#include "common.h"

namespace router::app {

namespace {

void add_serve_entry(CLI::App& app) {
  app.add_subcommand("serve", "HTTP service: POST /classify, POST /batch, GET /healthz, /metrics");
}

}  // namespace

const Command kCommands[] = {
    {"classify", add_classify_command}, {"batch", add_batch_command},
    {"eval", add_eval_command},         {"train", add_train_command},
    {"info", add_info_command},         {"positions", add_positions_command},
    {"demo", add_demo_command},         {"explain", add_explain_command},
    {"tokenize", add_tokenize_command}, {"filter", add_filter_command},
    {"route", add_route_command},       {"serve", add_serve_entry, "router-serve"},
};
const int kCommandCount = sizeof kCommands / sizeof kCommands[0];

}  // namespace router::app
