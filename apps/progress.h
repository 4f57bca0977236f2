// A one-line progress bar on stderr, drawn only when stderr is a terminal (and not with -q), so
// logs redirected to a file stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace router::app {

class ProgressBar {
 public:
  explicit ProgressBar(std::string what);
  ~ProgressBar();
  // done of total (total 0 = unknown); redraws at most ~10 times a second.
  void update(int64_t done, int64_t total);
  void clear();

 private:
  std::string what_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace router::app
