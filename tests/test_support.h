// Helpers shared by the tests: fixture paths, loading tensors from the PyTorch fixtures, and a
// comparison that names the tensor, the index, and expected vs got on failure.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "nn/tensor.h"

extern "C" char** environ;

namespace router::test {

inline std::string source_path(const std::string& relative) {
  return std::string(ROUTER_SOURCE_DIR) + "/" + relative;
}

inline nlohmann::json load_json(const std::string& relative) {
  std::ifstream in(source_path(relative));
  EXPECT_TRUE(in.good()) << "missing fixture " << relative;
  return nlohmann::json::parse(in);
}

// A fixture tensor {"shape", "data"} as a (rows, cols) matrix: the last axis is the columns.
template <typename S>
Mat<S> as_matrix(const nlohmann::json& t) {
  const auto shape = t.at("shape").get<std::vector<int64_t>>();
  const auto data = t.at("data").get<std::vector<double>>();
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const int64_t rows = cols ? static_cast<int64_t>(data.size()) / cols : 0;
  Mat<S> m(rows, cols);
  for (int64_t i = 0; i < static_cast<int64_t>(data.size()); ++i)
    m.data()[i] = static_cast<S>(data[i]);
  return m;
}

template <typename S>
Vec<S> as_vector(const nlohmann::json& t) {
  const auto data = t.at("data").get<std::vector<double>>();
  Vec<S> v(static_cast<Eigen::Index>(data.size()));
  for (size_t i = 0; i < data.size(); ++i)
    v(static_cast<Eigen::Index>(i)) = static_cast<S>(data[i]);
  return v;
}

// |got - want| <= atol + rtol |want| for every element; reports the first failures by index.
template <typename A, typename B>
::testing::AssertionResult all_close(const std::string& name, const A& got, const B& want,
                                     double atol, double rtol = 0) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    return ::testing::AssertionFailure()
           << name << ": shape (" << got.rows() << ", " << got.cols() << ") != expected ("
           << want.rows() << ", " << want.cols() << ")";
  }
  std::ostringstream bad;
  int n_bad = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i) {
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      const double g = static_cast<double>(got(i, j)), w = static_cast<double>(want(i, j));
      if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
        if (n_bad < 5) {
          bad << "\n  " << name << "[" << i << ", " << j << "]: expected " << w << ", got " << g
              << " (diff " << std::abs(g - w) << ")";
        }
        ++n_bad;
      }
    }
  }
  if (n_bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n_bad << " element(s) differ:" << bad.str();
}

// ---- Running the router binary -----------------------------------------------------------------

struct CommandResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

// Single-quoted for /bin/sh.
// Every non-empty line of JSON Lines text, parsed with key order kept.
inline std::vector<nlohmann::ordered_json> parse_jsonl(const std::string& text) {
  std::vector<nlohmann::ordered_json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(nlohmann::ordered_json::parse(line));
  }
  return out;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// n JSON Lines records {"id": i, "text": "where is my order i"}: input for the CLI tests.
inline std::string order_records(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    s +=
        nlohmann::json{{"id", i}, {"text", "where is my order " + std::to_string(i)}}.dump() + "\n";
  }
  return s;
}

// A fresh directory under /tmp, removed with everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "router_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;  // a test may have made it read-only
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Runs `COMMAND` (a shell command line, quoted as it needs) with stdin from `stdin_file`,
// capturing both streams through files in `scratch_dir`.
inline CommandResult run_command(const std::string& command, const std::string& scratch_dir,
                                 const std::string& stdin_file = "/dev/null") {
  static int counter = 0;
  const std::string n = std::to_string(counter++);
  const std::string out = scratch_dir + "/stdout." + n, err = scratch_dir + "/stderr." + n;
  const std::string cmd =
      command + " <" + quote(stdin_file) + " >" + quote(out) + " 2>" + quote(err);
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Runs `router ARGS` (ARGS already quoted), as run_command.
inline CommandResult run_router(const std::string& args, const std::string& scratch_dir,
                                const std::string& stdin_file = "/dev/null") {
  return run_command(quote(ROUTER_BINARY) + " " + args, scratch_dir, stdin_file);
}

// The environment with ":detect_leaks=0" added to ASAN_OPTIONS, as "NAME=value" strings.
inline std::vector<std::string> environment_without_leak_check() {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    if (std::string_view(*e).rfind("ASAN_OPTIONS=", 0) != 0) out.push_back(*e);
  }
  const char* asan = std::getenv("ASAN_OPTIONS");
  out.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + ":detect_leaks=0");
  return out;
}

// Starts `router ARGS...` (not through a shell, so a signal reaches router itself) with stdin
// from /dev/null and stdout and stderr appended to `log`; its pid, or -1.
// `leak_check` false: for a process the test will SIGKILL. It has no exit to check for leaks at,
// and a kill that lands during LeakSanitizer's exit check makes the checker report that it lost
// the process ("Unable to get registers"), which the sanitizer run counts as a finding.
inline pid_t start_router(const std::vector<std::string>& args, const std::string& log,
                          bool leak_check = true) {
  std::vector<std::string> all = {ROUTER_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> changed =
      leak_check ? std::vector<std::string>{} : environment_without_leak_check();
  std::vector<char*> env;
  for (auto& e : changed) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  char** envp = leak_check ? environ : env.data();
  if (::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace router::test
