#include "base/signals.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "base/errors.h"

namespace router {

namespace {

std::atomic<int> g_signal{0};

// Paths the second signal removes: fixed buffers, because a signal handler may not allocate.
constexpr int kSlots = 8;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<bool> g_claimed[kSlots];  // a registration owns the slot
std::atomic<bool> g_ready[kSlots];    // its path is complete: the handler may read it

extern "C" void on_signal(int sig) {
  if (g_signal.exchange(sig) == 0) return;
  for (int i = 0; i < kSlots; ++i) {
    if (g_ready[i].load()) ::unlink(g_paths[i]);
  }
  ::_exit(130);
}

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

int register_temp_file(const char* path) {
  if (std::strlen(path) >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool free = false;
    if (g_claimed[i].compare_exchange_strong(free, true)) {
      std::strcpy(g_paths[i], path);
      g_ready[i].store(true);
      return i;
    }
  }
  return -1;
}

void unregister_temp_file(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  g_ready[slot].store(false);
  g_claimed[slot].store(false);
}

void check_interrupted() {
  if (interrupted()) throw InterruptedError();
}

}  // namespace router
