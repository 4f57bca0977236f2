// Ctrl-C (base/signals.h): in training the first one keeps the best model of the epochs finished
// so far, written whole and marked "interrupted"; before any epoch has finished nothing is
// written; a second signal stops a process at once, removing its temporary output files first.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/signals.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using router::test::slurp;
using router::test::spit;
using router::test::start_router;
using router::test::TempDir;

// n short labelled emails of three labels.
std::string training_data(int n) {
  const char* kinds[][2] = {{"where is my order number", "status"},
                            {"please refund the money for order", "refund"},
                            {"cancel my order before it ships, order", "cancel"}};
  std::string out;
  for (int i = 0; i < n; ++i) {
    const auto& k = kinds[i % 3];
    out += nlohmann::json{{"text", std::string(k[0]) + " " + std::to_string(i)}, {"label", k[1]}}
               .dump() +
           "\n";
  }
  return out;
}

// Waits (at most 60 s) until `log` holds `text`.
bool wait_for(const std::string& log, const std::string& text) {
  for (int i = 0; i < 600; ++i) {
    if (slurp(log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// Files in `dir` whose name says they are OutputFile's temporary files.
int temp_files(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  }
  return n;
}

const std::vector<std::string> kSmallModel = {
    "--d-model", "16", "--heads", "2", "--layers", "1", "--d-ff", "16", "--vocab-size", "300"};

TEST(Interrupt, TrainingKeepsTheBestModelOfTheFinishedEpochs) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), training_data(1500));
  std::vector<std::string> args = {
      "train", "--train", tmp.path("d.jsonl"), "-o", tmp.path("m.json"), "--epochs", "10000"};
  args.insert(args.end(), kSmallModel.begin(), kSmallModel.end());
  const pid_t pid = start_router(args, tmp.path("log"));
  ASSERT_GT(pid, 0);
  const bool started = wait_for(tmp.path("log"), "epoch  2/");
  ::kill(pid, SIGINT);
  ASSERT_TRUE(started) << slurp(tmp.path("log"));
  EXPECT_EQ(exit_code(pid), 130) << slurp(tmp.path("log"));
  const std::string log = slurp(tmp.path("log"));
  EXPECT_NE(log.find("interrupted: wrote the best model so far (epoch "), std::string::npos) << log;
  const auto model = nlohmann::json::parse(slurp(tmp.path("m.json")));
  EXPECT_EQ(model["metadata"]["interrupted"], true);
  EXPECT_GE(model["metadata"]["best_epoch"].get<int>(), 2);
  EXPECT_EQ(temp_files(tmp.dir()), 0);
  const auto r = router::test::run_router(
      "classify -m " + router::test::quote(tmp.path("m.json")) + " 'where is my order'", tmp.dir());
  EXPECT_EQ(r.code, 0) << r.err;
}

// Of an ensemble, the first Ctrl-C keeps the members finished before it and leaves out the one
// it cut short.
TEST(Interrupt, AnEnsembleKeepsItsFinishedMembers) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), training_data(1500));
  // Members of 20 epochs each: the first ends at a known epoch however slow the machine (a
  // plateau in the validation loss came only after some 70 epochs, past the minute wait_for
  // gives under a sanitizer on a busy machine), and the second runs long enough to be cut short.
  std::vector<std::string> args = {"train", "--train",          tmp.path("d.jsonl"),
                                   "-o",    tmp.path("m.json"), "--ensemble",
                                   "3",     "--epochs",         "20"};
  args.insert(args.end(), kSmallModel.begin(), kSmallModel.end());
  const pid_t pid = start_router(args, tmp.path("log"));
  ASSERT_GT(pid, 0);
  const bool started = wait_for(tmp.path("log"), "member 2/3  epoch  1/");
  ::kill(pid, SIGINT);
  ASSERT_TRUE(started) << slurp(tmp.path("log"));
  ASSERT_EQ(exit_code(pid), 130) << slurp(tmp.path("log"));
  const std::string log = slurp(tmp.path("log"));
  const auto model = nlohmann::json::parse(slurp(tmp.path("m.json")));
  EXPECT_EQ(model["metadata"]["interrupted"], true);
  const size_t kept = model.contains("members") ? 1 + model["members"].size() : 1;
  EXPECT_TRUE(kept == 1 || kept == 2) << kept;
  const std::string members = kept == 1 ? "1 finished member" : "2 finished members";
  EXPECT_NE(log.find("interrupted: wrote the " + members + " of 3"), std::string::npos) << log;
  EXPECT_EQ(temp_files(tmp.dir()), 0);
}

// Ctrl-C, then --resume from the last epoch's checkpoint: the model of a run never stopped, byte
// for byte (the library test, test_checkpoint.cc, resumes after every epoch).
TEST(Interrupt, ResumingFromTheCheckpointGivesTheUninterruptedModel) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), training_data(1500));
  std::vector<std::string> run = {"train",      "--train", tmp.path("d.jsonl"), "--epochs", "30",
                                  "--patience", "30"};
  run.insert(run.end(), kSmallModel.begin(), kSmallModel.end());
  std::string whole;
  for (const auto& a : run) whole += router::test::quote(a) + " ";
  const auto uninterrupted = router::test::run_router(
      whole + "-o " + router::test::quote(tmp.path("full.json")), tmp.dir());
  ASSERT_EQ(uninterrupted.code, 0) << uninterrupted.err;

  std::vector<std::string> args = run;
  args.insert(args.end(), {"-o", tmp.path("cut.json"), "--checkpoint", tmp.path("run.ck")});
  const pid_t pid = start_router(args, tmp.path("log"));
  ASSERT_GT(pid, 0);
  const bool started = wait_for(tmp.path("log"), "epoch  2/");
  ::kill(pid, SIGINT);
  ASSERT_TRUE(started) << slurp(tmp.path("log"));
  const int code = exit_code(pid);
  ASSERT_EQ(code, 130) << "the run ended before the signal; the test needs a longer one\n"
                       << slurp(tmp.path("log"));
  const auto resumed =
      router::test::run_router(whole + "-o " + router::test::quote(tmp.path("resumed.json")) +
                                   " --resume " + router::test::quote(tmp.path("run.ck")) +
                                   " --checkpoint " + router::test::quote(tmp.path("run.ck")),
                               tmp.dir());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming after epoch"), std::string::npos) << resumed.err;
  EXPECT_EQ(slurp(tmp.path("resumed.json")), slurp(tmp.path("full.json")));
  EXPECT_EQ(temp_files(tmp.dir()), 0);
}

TEST(Interrupt, TrainingStoppedBeforeItsFirstEpochEndsWritesNothing) {
  TempDir tmp;
  spit(tmp.path("d.jsonl"), training_data(60000));  // an epoch of several seconds
  std::vector<std::string> args = {
      "train", "--train", tmp.path("d.jsonl"), "-o", tmp.path("m.json"), "--epochs", "3"};
  args.insert(args.end(), kSmallModel.begin(), kSmallModel.end());
  const pid_t pid = start_router(args, tmp.path("log"));
  ASSERT_GT(pid, 0);
  const bool started = wait_for(tmp.path("log"), "vocabulary:");
  ::kill(pid, SIGINT);
  ASSERT_TRUE(started) << slurp(tmp.path("log"));
  EXPECT_EQ(exit_code(pid), 130) << slurp(tmp.path("log"));
  ASSERT_EQ(slurp(tmp.path("log")).find("epoch  1/"), std::string::npos)
      << "the first epoch ended before the signal; the test needs a longer one";
  EXPECT_FALSE(fs::exists(tmp.path("m.json")));
  EXPECT_EQ(temp_files(tmp.dir()), 0);
}

// A process with an output half written gets two signals: it ends at once, exit 130, and the
// temporary file is gone (the target never appears).
TEST(Interrupt, ASecondSignalStopsAtOnceAndLeavesNoTemporaryFile) {
  TempDir tmp;
  const std::string target = tmp.path("out.json");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    router::install_signal_handlers();
    router::OutputFile out(target);
    out.write("{\"half\": ");
    ::raise(SIGINT);  // the first: a flag that nothing here polls
    ::raise(SIGINT);  // the second: stop now
    ::_exit(0);       // not reached
  }
  EXPECT_EQ(exit_code(pid), 130);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(temp_files(tmp.dir()), 0);
}

}  // namespace
