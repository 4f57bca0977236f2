// A `router serve` process for the tests that talk to the service (test_serve.cc) or deliver
// mail through routerc (test_filter.cc): started on 127.0.0.1 with a free port, stopped with
// SIGTERM.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace router::test {

// Seconds since `t` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class ServeProcess {
 public:
  ServeProcess(const TempDir& tmp, const std::vector<std::string>& args)
      : log_(tmp.path("serve.log")) {
    std::vector<std::string> argv = {ROUTER_BINARY, "serve", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;  // made before fork: the child only calls async-signal-safe functions
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    const int err = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null = ::open("/dev/null", O_RDWR);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(err, 2);
      ::dup2(null, 1);
      ::execv(c[0], c.data());
      ::_exit(127);
    }
    ::close(err);
    ::close(null);
    const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)");
    for (const auto start = std::chrono::steady_clock::now();
         port_ == 0 && seconds_since(start) < 10;) {
      std::smatch m;
      const std::string log = slurp(log_);
      if (std::regex_search(log, m, listening)) port_ = std::stoi(m[1]);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~ServeProcess() {
    if (pid_ > 0) stop();
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log() const { return slurp(log_); }
  // SIGTERM, then the exit status within 10 s (-1 if it had to be killed, -2 if it crashed).
  int stop() {
    ::kill(pid_, SIGTERM);
    return wait();
  }
  int wait() {
    int status = 0;
    for (const auto start = std::chrono::steady_clock::now(); seconds_since(start) < 10;) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace router::test
