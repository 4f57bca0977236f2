// routerc: `router filter` by way of a running `router serve`, as spamc is to spamd. A mail
// filter starts one process per message, and most of what `router filter` costs is its own
// start: its libraries, GMime, the model. routerc links only the C library: it sends the message
// to the service's POST /filter and writes back the answer, which is byte for byte what
// `router filter` writes. When the service does not answer in time, or answers anything but a
// whole 200, the message is filtered here by `router filter` instead, and if even that cannot
// start, it passes through with X-Router-Error. Exit 0 unless reading stdin or writing stdout
// fails (docs/mail-flow.md).
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "input/headers.h"

namespace {

using Clock = std::chrono::steady_clock;
using router::has_prefix;
using router::header_value;
using router::stamp_headers;

struct Options {
  std::string host = "127.0.0.1";
  int port = 8080;
  double timeout = 10;
  int k = 0;
  // For `router filter` when the service does not answer: the service has its own.
  std::string model;
  bool no_header_rules = false;
};

// An answer larger than the message by more than this is not a filtered message.
constexpr size_t kMaxAddedBytes = size_t{1} << 20;

std::runtime_error failure(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Waits until `fd` is ready for `events` or the deadline passes (then throws).
void wait_for(int fd, short events, Clock::time_point deadline, const char* doing) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) throw std::runtime_error(std::string("timed out ") + doing);
    pollfd p = {fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (n > 0) return;
    if (n < 0 && errno != EINTR) throw failure(doing);
  }
}

// A connection to the service, made before the deadline.
int connect_to(const Options& o, Clock::time_point deadline) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int e = ::getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &found)) {
    throw std::runtime_error("cannot find " + o.host + ": " + ::gai_strerror(e));
  }
  std::string why = "no address";
  int fd = -1;
  for (const addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int error = 0;
    socklen_t size = sizeof error;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      error = errno;
      if (error == EINPROGRESS) {
        try {
          wait_for(fd, POLLOUT, deadline, "connecting");
          ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
        } catch (const std::exception& e) {
          why = e.what();
          error = -1;
        }
      }
    }
    if (error != 0) {
      if (error > 0) why = std::strerror(error);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error(why);
  return fd;
}

// `more`: further data follows at once (MSG_MORE), so the request's head is not sent as a
// segment of its own, which the service's delayed acknowledgement could hold up.
void send_all(int fd, std::string_view data, Clock::time_point deadline, bool more = false) {
  while (!data.empty()) {
    wait_for(fd, POLLOUT, deadline, "sending");
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    if (n < 0 && errno != EAGAIN && errno != EINTR) throw failure("sending");
    if (n > 0) data.remove_prefix(static_cast<size_t>(n));
  }
}

// Everything the service sends until it closes the connection, at most `limit` bytes.
std::string receive_all(int fd, size_t limit, Clock::time_point deadline) {
  std::string answer;
  char buf[65536];
  for (;;) {
    wait_for(fd, POLLIN, deadline, "waiting for the answer");
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return answer;
    if (n < 0 && errno != EAGAIN && errno != EINTR) throw failure("reading the answer");
    if (n > 0) answer.append(buf, static_cast<size_t>(n));
    if (answer.size() > limit) throw std::runtime_error("the answer is too large");
  }
}

// The body of a whole 200 answer (its Content-Length all there), or throws saying what came.
std::string body_of(const std::string& answer) {
  const size_t end = answer.find("\r\n\r\n");
  if (end == std::string::npos) throw std::runtime_error("the answer was cut short");
  const std::string_view head(answer.data(), end);
  const std::string_view status = head.substr(0, head.find("\r\n"));
  if (status.size() < 13 || status.rfind("HTTP/1.", 0) != 0 || status.substr(8, 5) != " 200 ") {
    throw std::runtime_error("the service answered " + header_value(status, 80));
  }
  long long length = -1;
  for (size_t at = status.size() + 2; at < head.size();) {
    const size_t eol = std::min(head.find("\r\n", at), head.size());
    const std::string_view line = head.substr(at, eol - at);
    at = eol + 2;
    constexpr std::string_view kLength = "Content-Length:";
    if (has_prefix(line, kLength))
      length = std::atoll(std::string(line.substr(kLength.size())).c_str());
  }
  const size_t body = end + 4;
  if (length < 0 || static_cast<size_t>(length) != answer.size() - body) {
    throw std::runtime_error("the answer was cut short");
  }
  return answer.substr(body);
}

// The message as the service's POST /filter answers it; throws why not.
std::string ask_service(const Options& o, const std::string& message) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(o.timeout));
  const Fd fd(connect_to(o, deadline));
  const std::string host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  const std::string head =
      "POST /filter" + (o.k > 0 ? "?k=" + std::to_string(o.k) : "") + " HTTP/1.1\r\nHost: " + host +
      ":" + std::to_string(o.port) +
      "\r\nContent-Type: message/rfc822\r\nContent-Length: " + std::to_string(message.size()) +
      "\r\nConnection: close\r\n\r\n";
  send_all(fd.get(), head, deadline, true);
  send_all(fd.get(), message, deadline);
  return body_of(receive_all(fd.get(), message.size() + kMaxAddedBytes, deadline));
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// `router` beside this program (the build tree, or bin/ once installed), else from PATH.
std::string router_program() {
  std::string self(PATH_MAX, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
  if (n > 0) {
    self.resize(static_cast<size_t>(n));
    const std::string beside = self.substr(0, self.rfind('/') + 1) + "router";
    if (::access(beside.c_str(), X_OK) == 0) return beside;
  }
  return "router";
}

// Runs `router filter` on `message`, writing to this program's stdout; its exit status, or -1
// when it could not start (then it wrote nothing) or was stopped by a signal.
int filter_here(const Options& o, const std::string& message) {
  std::vector<std::string> args = {router_program(), "filter"};
  if (o.k > 0) args.insert(args.end(), {"-k", std::to_string(o.k)});
  if (!o.model.empty()) args.insert(args.end(), {"-m", o.model});
  if (o.no_header_rules) args.push_back("--no-header-rules");
  std::vector<char*> argv;  // made before fork: the child only calls async-signal-safe functions
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe[0]);
    ::close(pipe[1]);
    return -1;
  }
  if (pid == 0) {
    ::dup2(pipe[0], 0);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe[0]);
  write_all(pipe[1], message);  // if it stops reading early, its exit status says why
  ::close(pipe[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) return -1;
  return WEXITSTATUS(status);
}

int run(const Options& o) {
  std::string message;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::fprintf(stderr, "routerc: cannot read standard input: %s\n", std::strerror(errno));
      return 5;
    }
    if (n == 0) break;
    message.append(buf, static_cast<size_t>(n));
  }
  std::string out;
  try {
    out = ask_service(o, message);
  } catch (const std::exception& e) {
    const std::string why = "no answer from router serve at " + o.host + ":" +
                            std::to_string(o.port) + " (" + e.what() + ")";
    std::fprintf(stderr, "routerc: %s; filtering with router filter here\n", why.c_str());
    const int code = filter_here(o, message);
    if (code >= 0) return code;
    out = stamp_headers(message, "X-Router-",
                        {"X-Router-Error: " + header_value(why + "; router filter did not run")});
  }
  if (!write_all(1, out)) {
    std::fprintf(stderr, "routerc: cannot write to standard output: %s\n", std::strerror(errno));
    return 5;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  Options o;
  CLI::App app(
      "routerc: router filter by way of a running `router serve`. One message on stdin, the same "
      "message on stdout with X-Router-* headers, as `router filter` writes it. When the service "
      "does not answer, `router filter` runs here instead.",
      "routerc");
  app.add_option("--host", o.host, "The service's address")->capture_default_str();
  app.add_option("--port", o.port, "The service's port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_option("--timeout", o.timeout, "Seconds for the service to answer")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("-k,--top-k", o.k, "Also add X-Router-Top-K with the K best labels")
      ->check(CLI::Range(0, 10000));
  app.add_option("-m,--model", o.model,
                 "Model for `router filter` when the service does not answer (give the "
                 "service's own)");
  app.add_flag("--no-header-rules", o.no_header_rules,
               "For `router filter` when the service does not answer, as the service was started");
  app.footer(
      "Exit 0 for every message, 5 if stdin or stdout fails. Start the service with `router "
      "serve`; recipes in docs/mail-flow.md.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "routerc: usage: %s\nRun 'routerc --help' for the options.\n", e.what());
    return 2;
  }
  try {
    return run(o);
  } catch (const std::bad_alloc&) {  // a message larger than memory
    std::fprintf(stderr, "routerc: out of memory\n");
    return 1;
  }
}
