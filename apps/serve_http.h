// The HTTP layer of `router serve`: cpp-httplib's server with the limits a service needs. A fixed
// pool of workers serves one connection each at a time. A request must arrive whole within the
// time limit (a client sending a byte a second is cut off with 408) and within a byte budget
// (64 KiB of request line and headers, then --max-body: 431 and 413), so no client holds a worker
// or memory for long. A connection is kept alive only while no other one waits for a worker.
// stop() ends the accepting; the requests already read are answered first.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include <httplib.h>

namespace router::app {

struct HttpLimits {
  size_t max_body = size_t{1} << 20;  // bytes of a request body, after any Content-Encoding
  double timeout = 5;                 // seconds for a request to arrive whole, and for its answer
  double idle = 5;                    // seconds a kept-alive connection may wait for a request
  int threads = 1;                    // workers
};

// Request line and headers together; more is 431.
constexpr size_t kMaxHeaderBytes = size_t{64} << 10;

class WorkerPool;

class HttpServer : public httplib::Server {
 public:
  // Called once per request answered or cut off, from its worker: the path ("" if unreadable),
  // the status (0: the client left before an answer) and the seconds from its first byte to the
  // end of the answer.
  using Finished = std::function<void(const std::string& path, int status, double seconds)>;
  // Answers (and returns true for) a request no handler should see: unknown path, wrong method.
  using Screen = std::function<bool(const httplib::Request&, httplib::Response&)>;

  HttpServer(const HttpLimits& limits, std::function<void()> started, Finished finished,
             Screen screen);

  // Binds `host`:`port` (0: a free port) and returns the port. Throws IoError.
  int bind(const std::string& host, int port);
  // Accepts and serves until stop(), then waits for the workers to answer what they hold.
  // Throws IoError if accepting fails.
  void serve();
  // True once stop() has been called.
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }
  // True while a connection waits for a worker.
  bool others_waiting() const;

  // {"error": message} with `status`; the connection is closed after the answer.
  static void fail(httplib::Response& res, int status, const std::string& message);
  // Reads the body of `req` through `reader` into `body` (none without Content-Length or
  // Transfer-Encoding), at most max_body bytes. False, with `res` filled, if it is larger or
  // does not arrive whole.
  bool read_body(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader& reader, std::string& body) const;

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool refused(const httplib::Request& req, httplib::Response& res) const;
  void on_error(httplib::Response& res) const;
  void on_answer(const httplib::Request& req, httplib::Response& res) const;

  HttpLimits limits_;
  std::function<void()> started_;
  Finished finished_;
  Screen screen_;
  std::atomic<WorkerPool*> pool_{nullptr};
};

}  // namespace router::app
