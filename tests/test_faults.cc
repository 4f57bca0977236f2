// Faults injected into real runs of the router binary: a full filesystem, standard output on
// /dev/full, a read-only or missing output directory, missing inputs, and SIGINT / SIGTERM in
// the middle of `batch` and `train`. Each test checks the exit code, the message, that an
// earlier output file is untouched and that no temporary file is left (docs/reliability.md).
// The full and read-only filesystems are small tmpfs mounts made inside a private mount
// namespace (`unshare -rm`); where the kernel refuses that, those tests are skipped.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using router::test::quote;
using router::test::run_router;
using router::test::slurp;
using router::test::spit;
using router::test::TempDir;

const std::string kTiny = router::test::source_path("tests/fixtures/models/tiny.json");
const std::string kTinyTrain = router::test::source_path("tests/fixtures/models/tiny-train.jsonl");
const std::string kPrevious = "previous contents\n";

// Names in `dir` that look like a temporary output file ("<name>.tmp.<pid>.<n>").
std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp.") != std::string::npos) {
      out.push_back(e.path().filename().string());
    }
  }
  return out;
}

// Runs a shell script and returns its exit status (-1 if it did not exit normally).
int sh(const std::string& script) {
  const int status = std::system(script.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// True if this process may mount a tmpfs in a private user + mount namespace.
bool can_mount_tmpfs() {
  static const bool ok =
      sh("unshare -rm sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\"; "
         "r=$?; umount \"$d\" 2>/dev/null; rmdir \"$d\"; exit $r' >/dev/null 2>&1") == 0;
  return ok;
}

// Runs `script` with a fresh tmpfs of `options` mounted on $MNT, in a private namespace: the
// mount is gone when the script ends, so the script itself copies out what the test inspects.
int with_tmpfs(const TempDir& tmp, const std::string& options, const std::string& script) {
  const std::string mnt = tmp.path("mnt");
  fs::create_directories(mnt);
  const std::string inner =
      "mount -t tmpfs -o " + options + " tmpfs \"$MNT\" || exit 99\n" + script;
  return sh("MNT=" + quote(mnt) + " ROUTER=" + quote(ROUTER_BINARY) + " unshare -rm sh -c " +
            quote(inner));
}

class Faults : public ::testing::Test {
 protected:
  TempDir tmp_{"router_faults"};
  std::string write(const std::string& name, const std::string& data) {
    spit(tmp_.path(name), data);
    return tmp_.path(name);
  }

  // What a run writing to a full disk left: `file` on a 64 kB tmpfs already holds kPrevious,
  // then `router ARGS -o $MNT/file` runs (ARGS already quoted).
  struct FullDiskRun {
    std::string rc, err, after, listing;
  };
  FullDiskRun onto_full_disk(const std::string& file, const std::string& args) {
    const std::string out = "\"$MNT/" + file + "\"";
    const std::string script =
        "printf '%s' " + quote(kPrevious) + " > " + out + "\n" + "\"$ROUTER\" " + args + " -o " +
        out + " 2> " + quote(tmp_.path("err")) + "\n" + "echo $? > " + quote(tmp_.path("rc")) +
        "\n" + "cp " + out + " " + quote(tmp_.path("after")) + "\n" + "ls -A \"$MNT\" > " +
        quote(tmp_.path("listing")) + "\n";
    EXPECT_EQ(with_tmpfs(tmp_, "size=64k", script), 0);
    return {slurp(tmp_.path("rc")), slurp(tmp_.path("err")), slurp(tmp_.path("after")),
            slurp(tmp_.path("listing"))};
  }
};

// ---- A full disk ---------------------------------------------------------------------------

TEST_F(Faults, BatchOntoAFullFilesystemIsExit5AndKeepsThePreviousFile) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "cannot mount a tmpfs here (unshare -rm refused)";
  // 2,000 records give ~300 kB of output; the filesystem holds 64 kB and already has the
  // previous output in it.
  const std::string in = write("in.jsonl", router::test::order_records(2000));
  const FullDiskRun r = onto_full_disk("out.jsonl", "batch " + quote(in) + " -m " + quote(kTiny));
  EXPECT_EQ(r.rc, "5\n") << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.after, kPrevious);
  EXPECT_EQ(r.listing, "out.jsonl\n") << "temporary file left behind";
}

TEST_F(Faults, TrainOntoAFullFilesystemIsExit5AndKeepsThePreviousModel) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "cannot mount a tmpfs here (unshare -rm refused)";
  // The tiny model's file is ~90 kB; the filesystem holds 64 kB.
  const FullDiskRun r = onto_full_disk(
      "m.json", "-q train --train " + quote(kTinyTrain) +
                    " --d-model 16 --heads 2 --layers 1 --d-ff 32 --vocab-size 300 --epochs 1"
                    " --max-len 32");
  EXPECT_EQ(r.rc, "5\n") << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.after, kPrevious);
  EXPECT_EQ(r.listing, "m.json\n") << "temporary file left behind";
}

// Standard output that cannot take data (the kernel's /dev/full answers every write ENOSPC).
TEST_F(Faults, StandardOutputOnDevFullIsExit5) {
  const std::string in = write("in.jsonl", router::test::order_records(2000));
  // One record fits in stdio's buffer: only the final flush can notice the full device.
  const std::string one = write("one.jsonl", router::test::order_records(1));
  const std::vector<std::string> commands = {
      "batch " + quote(in),    "classify 'where is my order'", "classify --lines -f " + quote(in),
      "tokenize " + quote(in), "tokenize " + quote(one),       "batch " + quote(one)};
  for (const auto& args : commands) {
    const int rc = sh(quote(ROUTER_BINARY) + " " + args + " -m " + quote(kTiny) + " >/dev/full 2>" +
                      quote(tmp_.path("err")));
    EXPECT_EQ(rc, 5) << args << ": " << slurp(tmp_.path("err"));
    EXPECT_NE(slurp(tmp_.path("err")).find("cannot write to standard output"), std::string::npos)
        << args << ": " << slurp(tmp_.path("err"));
  }
}

// ---- Unwritable and missing paths -------------------------------------------------------------

TEST_F(Faults, ReadOnlyOutputDirectoryIsExit5BeforeAnyWork) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "cannot mount a tmpfs here (unshare -rm refused)";
  // A read-only filesystem refuses even root, unlike a directory without write permission.
  const std::string in = write("in.jsonl", router::test::order_records(3));
  const std::string script =
      "\"$ROUTER\" batch " + quote(in) + " -m " + quote(kTiny) + " -o \"$MNT/out.jsonl\" 2> " +
      quote(tmp_.path("err_batch")) + "; echo $? > " + quote(tmp_.path("rc_batch")) + "\n" +
      "\"$ROUTER\" train --train " + quote(kTinyTrain) + " -o \"$MNT/m.json\" 2> " +
      quote(tmp_.path("err_train")) + "; echo $? > " + quote(tmp_.path("rc_train")) + "\n";
  ASSERT_EQ(with_tmpfs(tmp_, "ro,size=64k", script), 0);
  for (const std::string cmd : {"batch", "train"}) {
    const std::string err = slurp(tmp_.path("err_" + cmd));
    EXPECT_EQ(slurp(tmp_.path("rc_" + cmd)), "5\n") << cmd << ": " << err;
    EXPECT_NE(err.find("Read-only file system"), std::string::npos) << cmd << ": " << err;
    // Refused before the model was loaded or any training began.
    EXPECT_EQ(err.find("epoch"), std::string::npos) << cmd << ": " << err;
  }
}

TEST_F(Faults, DirectoryWithoutWritePermissionIsExit5) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any directory (see the read-only test)";
  const std::string in = write("in.jsonl", router::test::order_records(3));
  fs::create_directory(tmp_.path("ro"));
  fs::permissions(tmp_.path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  const auto r = run_router(
      "batch " + quote(in) + " -m " + quote(kTiny) + " -o " + quote(tmp_.path("ro/out.jsonl")),
      tmp_.dir());
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

// Every command that writes a file refuses a directory as the output path before any work,
// with no temporary file left: the check lives in OutputFile, which they all write through.
TEST_F(Faults, OutputPathThatIsADirectoryIsExit5BeforeAnyWork) {
  const std::string in = write("in.jsonl", router::test::order_records(3));
  fs::create_directory(tmp_.path("out"));
  const std::string dir = quote(tmp_.path("out"));
  const std::vector<std::string> commands = {
      "batch " + quote(in) + " -m " + quote(kTiny) + " -o " + dir,
      "tokenize " + quote(in) + " -m " + quote(kTiny) + " -o " + dir,
      "train --train " + quote(kTinyTrain) + " -o " + dir,
      "positions --svg " + dir,
      "explain --html " + dir + " -m " + quote(kTiny) + " 'where is my order'",
  };
  for (const auto& args : commands) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 5) << args << ": " << r.err;
    EXPECT_NE(r.err.find("it is a directory"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("epoch"), std::string::npos) << args << ": trained before refusing";
    EXPECT_TRUE(temp_files(tmp_.dir()).empty()) << args;
  }
}

TEST_F(Faults, MissingInputsAreExit5NamingThePath) {
  const std::string missing = tmp_.path("no_such_file.jsonl");
  const std::string out = tmp_.path("out.jsonl");
  const std::vector<std::string> commands = {
      "batch " + quote(missing) + " -m " + quote(kTiny),
      "batch " + quote(missing) + " -m " + quote(kTiny) + " -o " + quote(out),
      "eval " + quote(missing) + " -m " + quote(kTiny),
      "classify -f " + quote(missing) + " -m " + quote(kTiny),
      "train --train " + quote(missing) + " -o " + quote(tmp_.path("m.json")),
      "classify -m " + quote(tmp_.path("no_such_model.json")) + " 'where is my order'",
  };
  for (const auto& args : commands) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 5) << args << ": " << r.err;
    EXPECT_TRUE(r.err.find("no_such") != std::string::npos ||
                r.err.find(tmp_.dir()) != std::string::npos)
        << args << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(tmp_.path("m.json")));
}

// ---- Signals -----------------------------------------------------------------------------------

// A router process started directly (no shell in between, so the signal reaches router itself).
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::string& err_path) {
    pid_ = ::fork();
    if (pid_ == 0) {
      const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(err, 2);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(ROUTER_BINARY));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(ROUTER_BINARY, argv.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0 && status_ < 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void signal(int sig) { ::kill(pid_, sig); }
  bool running() {
    if (status_ >= 0) return false;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
      return false;
    }
    return true;
  }
  // Exit code, or 1000 + signal; -1 if it has not ended within `seconds`.
  int wait(double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (running() && std::chrono::steady_clock::now() < until) ::usleep(5000);
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
};

// Polls `ready` every 5 ms for up to `seconds`.
template <typename F>
bool wait_for(F ready, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    ::usleep(5000);
  }
  return true;
}

class Interrupt : public Faults, public ::testing::WithParamInterface<int> {};

TEST_P(Interrupt, BatchKeepsThePreviousOutputAndLeavesNoTemporaryFile) {
  const int sig = GetParam();
  const std::string in = write("in.jsonl", router::test::order_records(200000));
  const std::string out = write("out.jsonl", kPrevious);
  Child child({"batch", in, "-m", kTiny, "-o", out, "--threads", "1"}, tmp_.path("err"));
  // Signalled once labelled records have reached the temporary output: in the middle of work.
  auto writing = [&] {
    for (const auto& name : temp_files(tmp_.dir())) {
      std::error_code ec;
      if (fs::file_size(tmp_.path(name), ec) > 0 && !ec) return true;
    }
    return false;
  };
  ASSERT_TRUE(wait_for([&] { return writing() || !child.running(); }, 60))
      << "router never started writing";
  ASSERT_TRUE(child.running()) << "finished before the signal: " << slurp(tmp_.path("err"));
  child.signal(sig);
  const int code = child.wait(60);
  EXPECT_EQ(code, 130) << slurp(tmp_.path("err"));
  EXPECT_NE(slurp(tmp_.path("err")).find("interrupted"), std::string::npos)
      << slurp(tmp_.path("err"));
  EXPECT_EQ(slurp(out), kPrevious);
  EXPECT_TRUE(temp_files(tmp_.dir()).empty()) << "temporary file left behind";
}

// After an epoch has finished, the signal keeps the best model so far: it replaces the previous
// file whole, marked "interrupted" (tests/test_interrupt.cc has the case with no epoch finished).
TEST_P(Interrupt, TrainReplacesTheModelWholeWithTheBestSoFarAndLeavesNoTemporaryFile) {
  const int sig = GetParam();
  const std::string model = write("m.json", kPrevious);
  // Enough epochs that training is surely still running when the first epoch is reported.
  Child child(
      {"train",   "--train",   kTinyTrain, "-o",       model,    "--d-model",  "16",
       "--heads", "2",         "--layers", "1",        "--d-ff", "32",         "--vocab-size",
       "300",     "--max-len", "32",       "--epochs", "100000", "--patience", "100000"},
      tmp_.path("err"));
  ASSERT_TRUE(wait_for(
      [&] {
        return slurp(tmp_.path("err")).find("epoch") != std::string::npos || !child.running();
      },
      60))
      << "training never started: " << slurp(tmp_.path("err"));
  ASSERT_TRUE(child.running()) << "finished before the signal: " << slurp(tmp_.path("err"));
  child.signal(sig);
  const int code = child.wait(60);
  EXPECT_EQ(code, 130) << slurp(tmp_.path("err"));
  const auto written = nlohmann::json::parse(slurp(model));
  EXPECT_EQ(written["metadata"]["interrupted"], true);
  EXPECT_TRUE(temp_files(tmp_.dir()).empty()) << "temporary file left behind";
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

}  // namespace
