// The subcommands of an executable, in the order --help lists them; main.cc is shared by router
// and router-serve, and each links its own table. A command with a `program` lives in that other
// executable (next to this one, or in ../libexec/router/), which main runs in this process's
// place with the same arguments: the HTTP server's libraries (cpp-httplib, and OpenSSL with it)
// then cost only `router serve` its start-up, not every other command.
#pragma once

#include <CLI/CLI.hpp>

namespace router::app {

struct Command {
  const char* name;
  void (*add)(CLI::App&);
  const char* program = nullptr;
};

extern const Command kCommands[];
extern const int kCommandCount;

}  // namespace router::app
