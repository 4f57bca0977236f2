#include "progress.h"

#include <cstdio>

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace router::app {

ProgressBar::ProgressBar(std::string what)
    : what_(std::move(what)),
      enabled_(::isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressBar::~ProgressBar() { clear(); }

void ProgressBar::update(int64_t done, int64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done != total) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? done / secs : 0;
  char line[256];
  if (total > 0) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total);
    std::string bar(filled, '#');
    bar.resize(kWidth, '.');
    const double eta = rate > 0 ? (total - done) / rate : 0;
    std::snprintf(line, sizeof line, "\r%s [%s] %lld/%lld  %.0f/s  ETA %.0fs ", what_.c_str(),
                  bar.c_str(), static_cast<long long>(done), static_cast<long long>(total), rate,
                  eta);
  } else {
    std::snprintf(line, sizeof line, "\r%s %lld  %.0f/s ", what_.c_str(),
                  static_cast<long long>(done), rate);
  }
  std::fputs(line, stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

}  // namespace router::app
