// Output files (docs/reliability.md, "Output files"): every command that writes a file keeps a
// device, a FIFO or a symlink what it is, writes a device or FIFO in place, follows a symlink to
// its target, never widens a file's mode, and takes "-" for standard output. Devices and FIFOs
// are made inside a temporary directory (mknod needs root; those tests are skipped otherwise);
// the ordinary-user cases run router as `nobody` through setpriv when the tests run as root.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/files.h"
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

mode_t kind(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override { spit(in_, router::test::order_records(3)); }

  // Every command that writes a file, writing to `out`.
  std::vector<std::string> writers(const std::string& out) const {
    const std::string o = quote(out), m = " -m " + quote(kTiny);
    return {
        "batch " + quote(in_) + m + " -o " + o,
        "tokenize " + quote(in_) + m + " -o " + o,
        "train --train " + quote(kTinyTrain) + " --epochs 1 -o " + o,
        "explain --html " + o + m + " 'where is my order'",
        "positions --svg " + o,
        "positions --html " + o,
    };
  }

  // Makes a character device like /dev/null (1, 3) or /dev/full (1, 7) in the temp dir.
  bool make_device(const std::string& path, unsigned minor) {
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }

  TempDir tmp_{"router_output"};
  std::string in_ = tmp_.path("in.jsonl");
};

TEST_F(OutputFiles, NullDeviceStaysADeviceAndEveryCommandSucceeds) {
  const std::string null = tmp_.path("null");
  if (!make_device(null, 3)) GTEST_SKIP() << "mknod needs root";
  for (const auto& args : writers(null)) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(kind(null), S_IFCHR) << args << ": the device was replaced";
  }
}

TEST_F(OutputFiles, FullDeviceIsExit5NamingThePathAndStaysADevice) {
  const std::string full = tmp_.path("full");
  if (!make_device(full, 7)) GTEST_SKIP() << "mknod needs root";
  for (const auto& args : writers(full)) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 5) << args << ": " << r.err;
    EXPECT_NE(r.err.find(full), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(kind(full), S_IFCHR) << args << ": the device was replaced";
  }
}

// `-o /dev/stdout` is a symlink to a device or pipe: the link stays, the bytes go through it.
TEST_F(OutputFiles, SymlinkToADeviceStaysALink) {
  const std::string null = tmp_.path("null"), link = tmp_.path("stdout");
  if (!make_device(null, 3)) GTEST_SKIP() << "mknod needs root";
  fs::create_symlink(null, link);
  for (const auto& args : writers(link)) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(kind(link), S_IFLNK) << args;
    EXPECT_EQ(kind(null), S_IFCHR) << args;
  }
}

TEST_F(OutputFiles, FifoReaderReceivesTheBytesAndTheFifoStays) {
  const std::string fifo = tmp_.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::string args = "batch " + quote(in_) + " -m " + quote(kTiny);
  const auto expected = run_router(args, tmp_.dir());
  ASSERT_EQ(expected.code, 0) << expected.err;
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });  // opening waits for router
  const auto r = run_router(args + " -o " + quote(fifo), tmp_.dir());
  reader.join();
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(received, expected.out);
  EXPECT_EQ(kind(fifo), S_IFIFO);
}

// A reader that goes away: EPIPE is exit 5 with the path, not a silent death by SIGPIPE. The
// output is larger than a pipe's buffer, so router is still writing when the reader closes.
TEST_F(OutputFiles, FifoWhoseReaderLeavesIsExit5) {
  const std::string fifo = tmp_.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  spit(in_, router::test::order_records(4000));
  std::thread reader([&] { std::ifstream f(fifo); });  // opens, then closes at once
  const auto r = run_router("tokenize " + quote(in_) + " -m " + quote(kTiny) + " -o " + quote(fifo),
                            tmp_.dir());
  reader.join();
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find(fifo), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Broken pipe"), std::string::npos) << r.err;
  EXPECT_EQ(kind(fifo), S_IFIFO);
}

TEST_F(OutputFiles, SymlinkStaysALinkAndItsTargetGetsTheOutput) {
  const std::string target = tmp_.path("real.out"), link = tmp_.path("link.out");
  const std::string dangling_target = tmp_.path("new.out"), dangling = tmp_.path("dangling.out");
  fs::create_symlink("real.out", link);  // relative, as users make them
  fs::create_symlink(dangling_target, dangling);
  for (const auto& args : writers(link)) {
    spit(target, "old\n");
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(kind(link), S_IFLNK) << args;
    EXPECT_EQ(kind(target), S_IFREG) << args;
    EXPECT_NE(slurp(target), "old\n") << args << ": the target was not written";
  }
  const auto r = run_router(writers(dangling)[0], tmp_.dir());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(kind(dangling), S_IFLNK);
  EXPECT_EQ(kind(dangling_target), S_IFREG);
}

TEST_F(OutputFiles, ExistingModeIsKeptAndNewFilesFollowTheUmask) {
  const std::string out = tmp_.path("private.out");
  for (const auto& args : writers(out)) {
    spit(out, "old\n");
    fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_EQ(mode_of(out), 0600u) << args;
  }
  for (const auto& [mask, want] : {std::pair{"022", 0644u}, std::pair{"077", 0600u}}) {
    const std::string fresh = tmp_.path(std::string("new") + mask + ".out");
    const std::string script = "umask " + std::string(mask) + "; " + quote(ROUTER_BINARY) + " " +
                               writers(fresh)[0] + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(script.c_str()), 0) << script;
    EXPECT_EQ(mode_of(fresh), want) << "umask " << mask;
  }
}

// The temporary file is private while it is being written, whatever the final mode.
TEST_F(OutputFiles, TemporaryFileIsCreated0600) {
  const std::string out = tmp_.path("wide.out");
  spit(out, "old\n");
  fs::permissions(out, fs::perms::all);
  {
    router::OutputFile f(out);
    ASSERT_FALSE(f.temp_path().empty());
    EXPECT_EQ(mode_of(f.temp_path()), 0600u);
    f.write("new\n");
    f.commit();
  }
  EXPECT_EQ(mode_of(out), 0777u);
  EXPECT_EQ(slurp(out), "new\n");
}

// As root, the owner and group of the file being replaced are kept.
TEST_F(OutputFiles, RootKeepsTheOwnerOfAReplacedFile) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file away";
  const std::string out = tmp_.path("owned.out");
  spit(out, "old\n");
  ASSERT_EQ(::chown(out.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(out.c_str(), 0640), 0);
  const auto r = run_router(writers(out)[0], tmp_.dir());
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// The same promises for an ordinary user (nobody): mode kept, a FIFO written in place.
TEST_F(OutputFiles, OrdinaryUserKeepsModesAndWritesFifosInPlace) {
  if (::geteuid() != 0) GTEST_SKIP() << "run as root to switch to an ordinary user";
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups -- ";
  if (std::system((as_nobody + "test -x " + quote(ROUTER_BINARY)).c_str()) != 0) {
    GTEST_SKIP() << "nobody cannot run " << ROUTER_BINARY;
  }
  fs::permissions(tmp_.dir(), fs::perms::all);
  fs::permissions(in_, fs::perms::all);
  const std::string out = tmp_.path("mine.out"), fifo = tmp_.path("fifo");
  spit(out, "old\n");
  ASSERT_EQ(::chown(out.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
  const std::string batch = quote(ROUTER_BINARY) + " batch " + quote(in_) + " -m " + quote(kTiny);
  ASSERT_EQ(std::system((as_nobody + batch + " -o " + quote(out)).c_str()), 0);
  EXPECT_EQ(mode_of(out), 0600u);
  EXPECT_NE(slurp(out), "old\n");

  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(::chown(fifo.c_str(), 65534, 65534), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  const int rc = std::system((as_nobody + batch + " -o " + quote(fifo)).c_str());
  reader.join();
  EXPECT_EQ(rc, 0);
  EXPECT_NE(received.find("\"label\""), std::string::npos);
  EXPECT_EQ(kind(fifo), S_IFIFO);
}

// "-o -" is standard output for every command that takes -o.
TEST_F(OutputFiles, DashIsStandardOutput) {
  for (const std::string& args : {"batch " + quote(in_) + " -m " + quote(kTiny) + " -o -",
                                  "tokenize " + quote(in_) + " -m " + quote(kTiny) + " -o -",
                                  "train --train " + quote(kTinyTrain) + " --epochs 1 -o -"}) {
    const auto r = run_router(args, tmp_.dir());
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << args;
    EXPECT_FALSE(fs::exists(tmp_.path("-"))) << args << ": wrote a file named '-'";
  }
  const auto model =
      run_router("train --train " + quote(kTinyTrain) + " --epochs 1 -o -", tmp_.dir());
  EXPECT_TRUE(nlohmann::json::accept(model.out)) << model.out.substr(0, 200);
}

}  // namespace
