#include "base/signals.h"

#include <atomic>
#include <csignal>

#include "base/errors.h"

namespace router {

namespace {

std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) { g_signal.store(sig); }

}  // namespace

void install_signal_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A reader that goes away (a closed pipe or FIFO) is a write error naming the output, exit 5,
  // not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
}

bool interrupted() { return g_signal.load() != 0; }

void check_interrupted() {
  if (interrupted()) throw InterruptedError();
}

}  // namespace router
