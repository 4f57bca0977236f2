// The counters of `router serve`, and GET /metrics: Prometheus's text exposition format (0.0.4).
// Requests by path and status, errors by kind, a latency histogram, predictions by label and the
// requests in flight. Paths outside the service's own are counted as "other", so that a scan of
// random URLs cannot grow the table. Every method is safe to call from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace router::app {

class ServeMetrics {
 public:
  ServeMetrics(std::vector<std::string> paths, std::vector<std::string> labels);

  void started() { ++in_flight_; }
  // A request ended: `status` 0 when the client left before an answer (only the in-flight
  // gauge changes).
  void finished(const std::string& path, int status, double seconds);
  void predicted(int label);
  // A batch record answered with "error" instead of a prediction.
  void invalid_record();
  // The exposition text.
  std::string text() const;

 private:
  std::vector<std::string> paths_, labels_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;  // (path, status)
  std::map<std::string, uint64_t> errors_;                    // by kind
  std::vector<uint64_t> buckets_;                             // per bound of kBounds, and +Inf
  double seconds_ = 0;
  uint64_t count_ = 0;
  std::vector<uint64_t> predictions_;  // per label
  std::atomic<int64_t> in_flight_{0};
};

}  // namespace router::app
