#include "serve_metrics.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace router::app {

namespace {

// Upper bounds of the latency histogram's buckets, seconds: a short email takes well under a
// millisecond, a full batch body seconds.
constexpr double kBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                              0.1,    0.25,  0.5,    1,     2.5,  5,     10};
constexpr size_t kBuckets = std::size(kBounds) + 1;

// A label value as the format wants it: backslash, double quote and newline escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + '"';
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

ServeMetrics::ServeMetrics(std::vector<std::string> paths, std::vector<std::string> labels)
    : paths_(std::move(paths)),
      labels_(std::move(labels)),
      buckets_(kBuckets, 0),
      predictions_(labels_.size(), 0) {}

void ServeMetrics::finished(const std::string& path, int status, double seconds) {
  --in_flight_;
  if (status == 0) return;
  const bool known = std::find(paths_.begin(), paths_.end(), path) != paths_.end();
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(std::begin(kBounds), std::end(kBounds), seconds) - std::begin(kBounds));
  std::lock_guard lock(mutex_);
  ++requests_[{known ? path : "other", status}];
  if (status >= 400) ++errors_[status == 408 ? "timeout" : status >= 500 ? "server" : "client"];
  ++buckets_[bucket];
  seconds_ += seconds;
  ++count_;
}

void ServeMetrics::predicted(int label) {
  std::lock_guard lock(mutex_);
  if (label >= 0 && static_cast<size_t>(label) < predictions_.size()) ++predictions_[label];
}

void ServeMetrics::invalid_record() {
  std::lock_guard lock(mutex_);
  ++errors_["invalid_record"];
}

std::string ServeMetrics::text() const {
  std::string out;
  std::lock_guard lock(mutex_);
  header(out, "router_http_requests_total", "counter",
         "HTTP requests answered, by path and status.");
  for (const auto& [key, n] : requests_) {
    out += "router_http_requests_total{path=" + quoted(key.first) + ",status=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
  }
  header(out, "router_errors_total", "counter",
         "Errors: client (4xx but 408), timeout (408), server (5xx), invalid_record (a batch "
         "record answered with \"error\").");
  for (const char* kind : {"client", "timeout", "server", "invalid_record"}) {
    const auto it = errors_.find(kind);
    out += std::string("router_errors_total{kind=\"") + kind + "\"} " +
           std::to_string(it == errors_.end() ? 0 : it->second) + "\n";
  }
  header(out, "router_http_request_duration_seconds", "histogram",
         "Time from a request's first byte to the end of its answer.");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    cumulative += buckets_[i];
    out += "router_http_request_duration_seconds_bucket{le=\"" +
           (i < std::size(kBounds) ? number(kBounds[i]) : std::string("+Inf")) + "\"} " +
           std::to_string(cumulative) + "\n";
  }
  out += "router_http_request_duration_seconds_sum " + number(seconds_) + "\n";
  out += "router_http_request_duration_seconds_count " + std::to_string(count_) + "\n";
  header(out, "router_predictions_total", "counter", "Emails labelled, by predicted label.");
  for (size_t i = 0; i < labels_.size(); ++i) {
    out += "router_predictions_total{label=" + quoted(labels_[i]) + "} " +
           std::to_string(predictions_[i]) + "\n";
  }
  header(out, "router_http_requests_in_flight", "gauge", "Requests being read or answered.");
  out += "router_http_requests_in_flight " + std::to_string(in_flight_.load()) + "\n";
  return out;
}

}  // namespace router::app
