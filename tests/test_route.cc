// `router route` (apps/cmd_route.cc, input/maildir.h): every kind of source filed into a Maildir
// per label, copies that are byte-identical, moves that keep names and flags, and the promise
// that matters most: killed (SIGINT or SIGKILL) at random points, no message is ever lost, a
// move never leaves one in two places, and no half-written message appears in new/ or cur/.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "input/maildir.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using router::test::quote;
using router::test::run_router;
using router::test::slurp;
using router::test::spit;
using router::test::TempDir;

std::string fixture(const std::string& name) {
  return std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/mail/" + name;
}

// A short customer message, different for each i.
std::string message(int i) {
  return "From: customer" + std::to_string(i) + "@example.com\nSubject: order " +
         std::to_string(i) + "\nMessage-ID: <" + std::to_string(i) +
         "@example.com>\n\nWhere is my order number " + std::to_string(i) +
         "? It was due yesterday.\n";
}

// A Maildir of n messages at `dir`: even ones in new/, odd ones read (cur/, flag S).
void make_maildir(const std::string& dir, int n) {
  for (const char* sub : {"/tmp", "/new", "/cur"}) fs::create_directories(dir + sub);
  for (int i = 0; i < n; ++i) {
    const std::string name = std::to_string(i) + ".test";
    spit(dir + (i % 2 ? "/cur/" + name + ":2,S" : "/new/" + name), message(i));
  }
}

// How many times each content occurs among the message files (new/ and cur/) of the Maildirs at
// `dir` and, if `per_label`, of the Maildirs one level below it.
void count_contents(const std::string& dir, bool per_label, std::map<std::string, int>& seen) {
  if (!fs::is_directory(dir)) return;
  std::vector<std::string> maildirs;
  if (per_label) {
    for (const auto& e : fs::directory_iterator(dir)) maildirs.push_back(e.path().string());
  } else {
    maildirs.push_back(dir);
  }
  for (const auto& m : maildirs) {
    for (const auto& f : router::folder_messages(m)) ++seen[slurp(f)];
  }
}

// Files left in the tmp/ folders under `root`.
int tmp_files(const std::string& root) {
  int n = 0;
  if (!fs::is_directory(root)) return 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (fs::is_directory(e.path() / "tmp")) {
      n += static_cast<int>(std::distance(fs::directory_iterator(e.path() / "tmp"), {}));
    }
  }
  return n;
}

// Starts `router ARGS...` with its output in `log`, kills it with `sig` after `delay`, and
// returns its wait status.
int run_and_kill(const std::vector<std::string>& args, const std::string& log, int sig,
                 std::chrono::microseconds delay) {
  const pid_t pid = router::test::start_router(args, log, sig != SIGKILL);
  if (pid < 0) return -1;
  std::this_thread::sleep_for(delay);
  ::kill(pid, sig);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// How long routing a copy of `inbox` takes with `flags`: the kill tests pick their moments
// within it.
std::chrono::microseconds whole_run(const std::string& inbox, const std::string& flags,
                                    const std::string& scratch) {
  const std::string copy = scratch + "/calibration";
  fs::create_directories(copy);
  fs::copy(inbox, copy + "/inbox", fs::copy_options::recursive);
  const auto start = std::chrono::steady_clock::now();
  run_router("route " + quote(copy + "/inbox") + " " + flags + " --to " + quote(copy + "/routed"),
             scratch);
  fs::remove_all(copy);
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start);
}

TEST(Route, FilesEveryKindOfSourceAsAnExactCopy) {
  TempDir tmp;
  make_maildir(tmp.path("inbox"), 4);
  fs::copy_file(fixture("quoted_reply.eml"), tmp.path("reply.eml"));
  const std::string mbox = std::string(ROUTER_SOURCE_DIR) + "/examples/INBOX.mbox";
  const auto r =
      run_router("route " + quote(tmp.path("inbox")) + " " + quote(tmp.path("reply.eml")) + " " +
                     quote(mbox) + " --to " + quote(tmp.path("routed")),
                 tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  // One line per message: label, confidence, where it is now, where it came from.
  int n = 0;
  std::istringstream out(r.out);
  for (std::string line; std::getline(out, line); ++n) {
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string c; std::getline(fields, c, '\t');) cols.push_back(c);
    ASSERT_EQ(cols.size(), 4u) << line;
    EXPECT_EQ(cols[2].rfind(tmp.path("routed/" + cols[0]) + "/", 0), 0u) << line;
    if (cols[3].find("INBOX.mbox") == std::string::npos) {
      EXPECT_EQ(slurp(cols[2]), slurp(cols[3])) << line;  // byte for byte
      EXPECT_TRUE(fs::exists(cols[3])) << "a copy leaves the source: " << line;
    }
    // A message that was read (cur/, flag S) stays read.
    EXPECT_EQ(cols[3].find(":2,S") != std::string::npos, cols[2].find("/cur/") != std::string::npos)
        << line;
  }
  EXPECT_EQ(n, 4 + 1 + 3);
  EXPECT_EQ(tmp_files(tmp.path("routed")), 0);
  // The folders are private, like every mail folder.
  for (const auto& e : fs::directory_iterator(tmp.path("routed"))) {
    EXPECT_EQ(fs::status(e.path()).permissions() & fs::perms::all, fs::perms::owner_all);
  }
}

TEST(Route, MoveRenamesMessagesKeepingTheirNamesAndFlags) {
  TempDir tmp;
  make_maildir(tmp.path("inbox"), 6);
  struct stat before;
  ASSERT_EQ(::stat(tmp.path("inbox/cur/1.test:2,S").c_str(), &before), 0);
  const auto r = run_router(
      "route " + quote(tmp.path("inbox")) + " --move --to " + quote(tmp.path("routed")), tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(router::folder_messages(tmp.path("inbox")).empty());
  std::map<std::string, int> seen;
  count_contents(tmp.path("routed"), true, seen);
  EXPECT_EQ(seen.size(), 6u);
  bool found = false;
  for (const auto& e : fs::recursive_directory_iterator(tmp.path("routed"))) {
    if (e.path().filename() != "1.test:2,S") continue;
    found = true;
    struct stat after;
    ASSERT_EQ(::stat(e.path().c_str(), &after), 0);
    EXPECT_EQ(after.st_ino, before.st_ino) << "a move on one file system is a rename";
    EXPECT_EQ(e.path().parent_path().filename(), "cur");
  }
  EXPECT_TRUE(found);
}

TEST(Route, MoveRefusesAnMboxAndStdinBeforeAnyWork) {
  TempDir tmp;
  make_maildir(tmp.path("inbox"), 2);
  const std::string mbox = std::string(ROUTER_SOURCE_DIR) + "/examples/INBOX.mbox";
  const auto r = run_router("route " + quote(tmp.path("inbox")) + " " + quote(mbox) +
                                " --move --to " + quote(tmp.path("routed")),
                            tmp.dir());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("INBOX.mbox: --move takes message files and Maildirs"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(tmp.path("routed")));
  EXPECT_EQ(router::folder_messages(tmp.path("inbox")).size(), 2u);
}

TEST(Route, ReadsAMessageOrAnMboxOnStdin) {
  TempDir tmp;
  const auto one =
      run_router("route - --to " + quote(tmp.path("routed")), tmp.dir(), fixture("plain_utf8.eml"));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("\tstandard input\n"), std::string::npos) << one.out;
  const auto many = run_router("route - --to " + quote(tmp.path("routed")), tmp.dir(),
                               std::string(ROUTER_SOURCE_DIR) + "/examples/INBOX.mbox");
  ASSERT_EQ(many.code, 0) << many.err;
  EXPECT_NE(many.out.find("message 3 (line"), std::string::npos) << many.out;
  std::map<std::string, int> seen;
  count_contents(tmp.path("routed"), true, seen);
  EXPECT_EQ(seen.size(), 4u);
}

TEST(Route, AMessageThatCannotBeClassifiedStaysWhereItWas) {
  TempDir tmp;
  fs::create_directories(tmp.path("folder"));
  spit(tmp.path("folder/a.eml"), message(1));
  spit(tmp.path("folder/b.txt"), "no header block: \xff\xfe not a message");
  spit(tmp.path("folder/c.eml"), message(2));
  const auto r =
      run_router("route " + quote(tmp.path("folder")) + " --move --to " + quote(tmp.path("routed")),
                 tmp.dir());
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("left in place: " + tmp.path("folder/b.txt")), std::string::npos) << r.err;
  EXPECT_EQ(router::folder_messages(tmp.path("folder")),
            std::vector<std::string>{tmp.path("folder/b.txt")});
}

TEST(Route, NoLabelNamesAFolderOutsideTheRoot) {
  EXPECT_EQ(router::folder_name("refund_item"), "refund_item");
  EXPECT_EQ(router::folder_name("v1.2-beta"), "v1.2-beta");
  EXPECT_EQ(router::folder_name("../etc"), "%2E.%2Fetc");
  EXPECT_EQ(router::folder_name(".hidden"), "%2Ehidden");
  EXPECT_EQ(router::folder_name("a/b"), "a%2Fb");
  EXPECT_EQ(router::folder_name("50%"), "50%25");
  EXPECT_EQ(router::folder_name("café"), "caf%C3%A9");
}

// Killed at random points (the seed is printed on failure): after every kill each message is in
// exactly one place, and a run after the last kill finishes the job. The moments adapt to this
// machine's speed, so that most kills land while messages are moving.
TEST(Route, KilledAtRandomPointsAMoveNeverLosesNorDuplicatesAMessage) {
  TempDir tmp;
  constexpr int kMessages = 1000;
  make_maildir(tmp.path("inbox"), kMessages);
  std::map<std::string, int> all;
  count_contents(tmp.path("inbox"), false, all);
  ASSERT_EQ(all.size(), static_cast<size_t>(kMessages));
  int latest =
      static_cast<int>(whole_run(tmp.path("inbox"), "--move --threads 1", tmp.dir()).count());
  int stopped_midway = 0;
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<std::string> args = {
      "route", tmp.path("inbox"), "--move", "--to", tmp.path("routed"), "--threads", "1"};
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // a fresh inbox for each round
      fs::remove_all(tmp.path("inbox"));
      fs::remove_all(tmp.path("routed"));
      make_maildir(tmp.path("inbox"), kMessages);
    }
    const int sig = round % 2 ? SIGKILL : SIGINT;
    const auto delay =
        std::chrono::microseconds(std::uniform_int_distribution<int>(latest / 4, latest)(rng));
    const int status = run_and_kill(args, tmp.path("log"), sig, delay);
    // Finished (0), stopped by SIGINT between messages (130), or killed.
    EXPECT_TRUE((WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 130)) ||
                (WIFSIGNALED(status) && WTERMSIG(status) == sig))
        << "round " << round << ": status " << status << "\n"
        << slurp(tmp.path("log"));
    std::map<std::string, int> seen;
    count_contents(tmp.path("inbox"), false, seen);
    count_contents(tmp.path("routed"), true, seen);
    ASSERT_EQ(seen.size(), all.size()) << "round " << round << ": a message is lost";
    for (const auto& [content, n] : seen) {
      ASSERT_EQ(n, 1) << "round " << round << ": in " << n << " places:\n" << content;
    }
    EXPECT_EQ(tmp_files(tmp.path("routed")), 0) << "a move within one file system is a rename";
    const size_t left = router::folder_messages(tmp.path("inbox")).size();
    if (left == 0) latest = std::max(latest / 2, 1000);               // too late: earlier
    if (left == static_cast<size_t>(kMessages)) latest = latest * 2;  // too early: later
    stopped_midway += left > 0 && left < static_cast<size_t>(kMessages);
  }
  EXPECT_GT(stopped_midway, 0) << "no kill landed while messages were moving";
  // The run after the last kill goes on where it stopped.
  const auto r = run_router(
      "route " + quote(tmp.path("inbox")) + " --move --to " + quote(tmp.path("routed")), tmp.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, int> routed;
  count_contents(tmp.path("routed"), true, routed);
  EXPECT_EQ(routed, all);
  EXPECT_TRUE(router::folder_messages(tmp.path("inbox")).empty());
}

// A copy killed at random points: the sources are untouched, and every file in new/ or cur/ is
// a whole message (a partial one can only be in tmp/).
TEST(Route, KilledAtRandomPointsACopyNeverShowsHalfAMessage) {
  TempDir tmp;
  constexpr int kMessages = 1000;
  make_maildir(tmp.path("inbox"), kMessages);
  std::map<std::string, int> all;
  count_contents(tmp.path("inbox"), false, all);
  const int whole =
      static_cast<int>(whole_run(tmp.path("inbox"), "--threads 1", tmp.dir()).count());
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int round = 0; round < 4; ++round) {
    const auto delay = std::chrono::microseconds(std::uniform_int_distribution<int>(0, whole)(rng));
    run_and_kill({"route", tmp.path("inbox"), "--to", tmp.path("routed"), "--threads", "1"},
                 tmp.path("log"), SIGKILL, delay);
    std::map<std::string, int> source, routed;
    count_contents(tmp.path("inbox"), false, source);
    ASSERT_EQ(source, all) << "round " << round;
    count_contents(tmp.path("routed"), true, routed);
    for (const auto& [content, n] : routed) {
      ASSERT_EQ(all.count(content), 1u) << "round " << round << ": not a whole message:\n"
                                        << content;
    }
  }
}

}  // namespace
