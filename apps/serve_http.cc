#include "serve_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"

namespace router::app {

using Clock = std::chrono::steady_clock;

namespace {

// Requests on one connection before it is closed, and how long a kept-alive connection may idle
// while another waits for a worker before it gives its worker up.
constexpr int kMaxRequestsPerConnection = 1000;
constexpr double kIdleGrace = 0.1;
// After refusing a request whose body was not read: how long and how much of the rest to read
// before closing, so that the close does not reset the connection before the client has read
// the answer.
constexpr double kLingerSeconds = 0.5;
constexpr size_t kLingerBytes = size_t{1} << 20;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int millis_until(Clock::time_point deadline) {
  // Rounded up: a poll that wakes just before the deadline would only poll again.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 1000));
}

// poll() on one descriptor, retried when a signal interrupts it: > 0 ready, 0 not, < 0 error.
int wait_for(int fd, short events, int millis) {
  pollfd p = {fd, events, 0};
  int r;
  while ((r = ::poll(&p, 1, millis)) < 0 && errno == EINTR) {
  }
  return r;
}

// "2", "0.5": the time limit as a user wrote it.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace) +
         "\n";
}

// The request being served on this worker: its deadline, the bytes it may still send, and why
// it ended. Set only while process_request runs.
struct Exchange {
  Clock::time_point start = Clock::now();
  Clock::time_point read_deadline;
  size_t budget = kMaxHeaderBytes;  // bytes the parser may still read
  bool headers_read = false;        // the budget covers the body now
  bool over_budget = false;
  bool timed_out = false;
  bool close = false;  // close the connection after the answer
  bool answered = false;
  int status = 0;
  std::string path;
};

thread_local Exchange* t_exchange = nullptr;

}  // namespace

// Connections waiting for a worker, and the workers. httplib's own pool does not say how many
// wait, which the keep-alive rule needs.
class WorkerPool : public httplib::TaskQueue {
 public:
  explicit WorkerPool(int n) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
  }
  void enqueue(std::function<void()> job) override {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
      waiting_ = jobs_.size();
    }
    ready_.notify_one();
  }
  // Every job already queued still runs: a connection accepted is a request answered.
  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  bool waiting() const { return waiting_.load() > 0; }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return done_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        waiting_ = jobs_.size();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::atomic<size_t> waiting_{0};
  bool done_ = false;
  std::vector<std::thread> threads_;
};

namespace {

// One connection as httplib reads and writes it: reads held to the exchange's deadline and
// budget, writes gathered and sent at once (one packet for a short answer), and sent before the
// stream waits for input (a "100 Continue" must reach the client before its body can come).
class Connection : public httplib::Stream {
 public:
  Connection(int fd, double timeout) : fd_(fd), timeout_(timeout), in_(16384) {}

  bool is_readable() const override { return begin_ < end_ || wait_for(fd_, POLLIN, 0) > 0; }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, 0) > 0; }
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    if (out_.size() >= 65536 && !flush()) return -1;
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address(::getsockname, ip, port);
  }
  // httplib answers 500 for descriptors >= FD_SETSIZE because its own stream select()s on them;
  // this one polls, so it does not say.
  socket_t socket() const override { return INVALID_SOCKET; }

  // Starts an exchange: its time limit runs from now.
  void begin(Exchange& ex) {
    ex.read_deadline = after(timeout_);
    writing_ = false;
  }
  // Sends what was written; false if the client does not take it within the time limit.
  bool flush();
  // Waits up to `seconds` for the next request's first bytes, polling `give_up` (with the
  // seconds idle so far). False at the end of the stream or when giving up.
  bool wait_for_request(double seconds, const std::function<bool(double)>& give_up);

 private:
  // Reads more into the buffer before `deadline`: > 0 bytes, 0 end of stream, -1 error or late.
  ssize_t receive(Clock::time_point deadline, bool* late);
  template <typename F>
  void address(F get, std::string& ip, int& port) const {
    sockaddr_storage a = {};
    socklen_t n = sizeof a;
    char text[INET6_ADDRSTRLEN] = "";
    port = 0;
    if (get(fd_, reinterpret_cast<sockaddr*>(&a), &n) != 0) return;
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  int fd_;
  double timeout_;
  std::vector<char> in_;
  size_t begin_ = 0, end_ = 0;
  std::string out_;
  bool writing_ = false;  // the answer's time limit has started
  Clock::time_point write_deadline_;
};

ssize_t Connection::receive(Clock::time_point deadline, bool* late) {
  for (;;) {
    if (Clock::now() >= deadline) {
      *late = true;
      return -1;
    }
    const int ready = wait_for(fd_, POLLIN, millis_until(deadline));
    if (ready < 0) return -1;
    if (ready == 0) continue;
    const ssize_t n = ::recv(fd_, in_.data(), in_.size(), 0);
    if (n >= 0) {
      begin_ = 0;
      end_ = static_cast<size_t>(n);
      return n;
    }
    if (errno != EINTR && errno != EAGAIN) return -1;
  }
}

ssize_t Connection::read(char* ptr, size_t size) {
  Exchange& ex = *t_exchange;
  if (begin_ == end_) {
    if (!flush()) return -1;
    const ssize_t got = receive(ex.read_deadline, &ex.timed_out);
    if (got <= 0) return got;
  }
  if (ex.budget == 0) {
    ex.over_budget = true;
    return -1;
  }
  const size_t n = std::min({size, end_ - begin_, ex.budget});
  std::memcpy(ptr, in_.data() + begin_, n);
  begin_ += n;
  ex.budget -= n;
  return static_cast<ssize_t>(n);
}

bool Connection::flush() {
  if (out_.empty()) return true;  // the answer's time limit starts with its first byte
  if (!writing_) write_deadline_ = after(timeout_);
  writing_ = true;
  size_t sent = 0;
  while (sent < out_.size()) {
    if (Clock::now() >= write_deadline_) return false;
    const int ready = wait_for(fd_, POLLOUT, millis_until(write_deadline_));
    if (ready < 0) return false;
    if (ready == 0) continue;
    const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return false;
    if (n > 0) sent += static_cast<size_t>(n);
  }
  out_.clear();
  return true;
}

bool Connection::wait_for_request(double seconds, const std::function<bool(double)>& give_up) {
  if (begin_ < end_) return true;  // the client sent it with the last one
  const auto start = Clock::now(), deadline = after(seconds);
  for (int millis = 0;; millis = std::min(50, millis_until(deadline))) {
    const int ready = wait_for(fd_, POLLIN, millis);
    if (ready < 0) return false;
    if (ready > 0) {
      bool late = false;
      return receive(deadline, &late) > 0;
    }
    const double idle = std::chrono::duration<double>(Clock::now() - start).count();
    if (Clock::now() >= deadline || give_up(idle)) return false;
  }
}

// An answer for a request cut off before httplib could read its request line: too slow (408)
// or too long (431).
void answer_cut_off(Connection& conn, Exchange& ex, double timeout) {
  ex.status = ex.timed_out ? 408 : 431;
  const std::string body = error_json(
      ex.timed_out ? "the request did not arrive whole within " + seconds_text(timeout) + " s"
                   : "the request line and headers are longer than 64 KiB");
  const std::string head =
      "HTTP/1.1 " + std::to_string(ex.status) +
      (ex.timed_out ? " Request Timeout" : " Request Header Fields Too Large") +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n";
  conn.write(head.data(), head.size());
  conn.write(body.data(), body.size());
  ex.answered = true;
}

// Closes `fd`; after a refused request, first reads (and drops) what the client still sends, a
// little while, so that its unread bytes do not turn the close into a reset that could destroy
// the answer before the client reads it.
void close_socket(int fd, bool linger) {
  if (linger) {
    ::shutdown(fd, SHUT_WR);
    const auto deadline = after(kLingerSeconds);
    char buf[16384];
    size_t drained = 0;
    while (drained < kLingerBytes && wait_for(fd, POLLIN, millis_until(deadline)) > 0) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      drained += static_cast<size_t>(n);
    }
  }
  ::close(fd);
}

}  // namespace

HttpServer::HttpServer(const HttpLimits& limits, std::function<void()> started, Finished finished,
                       Screen screen)
    : limits_(limits),
      started_(std::move(started)),
      finished_(std::move(finished)),
      screen_(std::move(screen)) {
  new_task_queue = [this] {
    auto* pool = new WorkerPool(limits_.threads);
    pool_ = pool;
    return pool;
  };
  // Not SO_REUSEPORT (httplib's default): a second server on the same port must fail, not share.
  set_socket_options([](socket_t sock) {
    int one = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  });
  set_tcp_nodelay(true);
  set_payload_max_length(limits_.max_body);
  set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refused(req, res) || screen_(req, res) ? res.status : 100;
  });
  set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refused(req, res) || screen_(req, res) ? HandlerResponse::Handled
                                                  : HandlerResponse::Unhandled;
  });
  set_error_handler(HandlerWithResponse([this](const httplib::Request&, httplib::Response& res) {
    on_error(res);
    return HandlerResponse::Unhandled;
  }));
  set_post_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { on_answer(req, res); });
  set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    spdlog::error("internal error: {}", what);
    fail(res, 500, "internal error: " + what);
  });
}

int HttpServer::bind(const std::string& host, int port) {
  errno = 0;
  const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    const int e = errno;
    throw IoError("cannot listen on " + host + ":" + std::to_string(port) +
                  (e ? std::string(": ") + std::strerror(e) : ""));
  }
  // httplib listens with a backlog of 5: a burst of new connections would see theirs dropped
  // and retried a second later. A second listen() only widens it.
  ::listen(svr_sock_, SOMAXCONN);
  return bound;
}

void HttpServer::serve() {
  const bool ok = listen_after_bind();
  pool_ = nullptr;
  if (!ok && !stopping()) {
    throw IoError(std::string("cannot accept connections: ") + std::strerror(errno));
  }
}

bool HttpServer::others_waiting() const {
  const WorkerPool* pool = pool_.load();
  return pool && pool->waiting();
}

void HttpServer::fail(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(error_json(message), "application/json");
  if (t_exchange) t_exchange->close = true;
}

bool HttpServer::refused(const httplib::Request& req, httplib::Response& res) const {
  Exchange* ex = t_exchange;
  if (ex && !ex->headers_read) {  // the headers are in: from here the budget is the body's
    ex->headers_read = true;
    // A backstop for chunk framing; the body itself is held to max_body as it is received.
    ex->budget = 2 * limits_.max_body + kMaxHeaderBytes;
  }
  const bool chunked = req.has_header("Transfer-Encoding");
  if (chunked && req.get_header_value("Transfer-Encoding") != "chunked") {
    fail(res, 501,
         "Transfer-Encoding " + req.get_header_value("Transfer-Encoding") +
             " is not supported; send the body with a Content-Length");
    return true;
  }
  if (!req.has_header("Content-Length")) return false;
  const std::string& length = req.get_header_value("Content-Length");
  if (chunked || req.get_header_value_count("Content-Length") > 1) {
    fail(res, 400, "a request may have one Content-Length or Transfer-Encoding: chunked");
  } else if (length.empty() || length.size() > 18 ||
             length.find_first_not_of("0123456789") != std::string::npos) {
    fail(res, 400, "Content-Length is not a number of bytes: " + length);
  } else if (std::stoull(length) > limits_.max_body) {
    fail(res, 413,
         "the body is " + length + " bytes; the limit is " + std::to_string(limits_.max_body) +
             " (router serve --max-body)");
  } else {
    return false;
  }
  return true;
}

bool HttpServer::read_body(const httplib::Request& req, httplib::Response& res,
                           const httplib::ContentReader& reader, std::string& body) const {
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) return true;
  bool too_large = false;
  const bool ok = reader([&](const char* data, size_t n) {
    if (body.size() + n > limits_.max_body) return !(too_large = true);
    body.append(data, n);
    return true;
  });
  if (too_large) {
    fail(res, 413,
         "the body is longer than " + std::to_string(limits_.max_body) +
             " bytes (router serve --max-body)");
  } else if (!ok) {
    fail(res, 400, "the body did not arrive whole (the connection ended before it)");
  }
  return ok && !too_large;
}

// Every error answer is {"error": ...}; a request cut off by the time limit or the budget says
// so, whatever httplib made of the half it read.
void HttpServer::on_error(httplib::Response& res) const {
  const Exchange* ex = t_exchange;
  if (ex && ex->timed_out) {
    fail(res, 408,
         "the request did not arrive whole within " + seconds_text(limits_.timeout) + " s");
  } else if (ex && ex->over_budget) {
    if (ex->headers_read) {
      fail(res, 413, "the body is longer than " + std::to_string(limits_.max_body) + " bytes");
    } else {
      fail(res, 431, "the request line and headers are longer than 64 KiB");
    }
  } else if (res.body.empty()) {
    fail(res, res.status,
         res.status == 400   ? "malformed HTTP request"
         : res.status == 414 ? "the request line is longer than 8 KiB"
         : res.status == 404 ? "no such path"
                             : "HTTP status " + std::to_string(res.status));
  }
  if (t_exchange) t_exchange->close = true;
}

// Last look at every answer before it is written: whether the connection stays open, and a
// Content-Length that says the truth.
void HttpServer::on_answer(const httplib::Request& req, httplib::Response& res) const {
  Exchange* ex = t_exchange;
  if (!ex) return;
  ex->close = ex->close || res.status >= 400 || stopping() || others_waiting() ||
              res.get_header_value("Connection") == "close";
  res.headers.erase("Keep-Alive");
  res.headers.erase("Connection");
  if (ex->close) {
    res.set_header("Connection", "close");
  } else {
    res.set_header("Keep-Alive", "timeout=" + std::to_string(static_cast<int>(limits_.idle)));
  }
  res.headers.erase("Content-Length");
  res.set_header("Content-Length", std::to_string(res.body.size()));
  ex->answered = true;
  ex->status = res.status;
  ex->path = req.path;
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  int one = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Connection conn(sock, limits_.timeout);
  bool linger = false;
  for (int n = 0; n < kMaxRequestsPerConnection; ++n) {
    // A new connection may take the whole time limit to send its request; a kept-alive one
    // gives its worker up when the server stops, or after a short idle while others wait.
    const bool first = n == 0;
    if (!conn.wait_for_request(first ? limits_.timeout : limits_.idle, [&](double idle) {
          return stopping() || (!first && idle > kIdleGrace && others_waiting());
        })) {
      break;
    }
    Exchange ex;
    ex.close = n + 1 == kMaxRequestsPerConnection;  // said in the answer, so the client knows
    conn.begin(ex);
    t_exchange = &ex;
    started_();
    bool closed = false;
    bool ok = false;
    try {
      ok = process_request(conn, stopping(), closed, nullptr);
      if (!ex.answered && (ex.timed_out || ex.over_budget))
        answer_cut_off(conn, ex, limits_.timeout);
      ok = conn.flush() && ok;
    } catch (const std::exception& e) {  // httplib catches the handlers'; this is its own
      spdlog::error("internal error: {}", e.what());
    }
    t_exchange = nullptr;
    finished_(ex.path, ex.answered ? ex.status : 0,
              std::chrono::duration<double>(Clock::now() - ex.start).count());
    if (!ok || closed || ex.close || stopping()) {
      linger = ex.status >= 400;
      break;
    }
  }
  close_socket(sock, linger);
  return true;
}

}  // namespace router::app
