// What `cmake --install` puts on a machine: the binaries, man pages and bash completion, made
// at build time from the binaries' own --help (scripts/make-docs.sh), so every command and option
// is in them; the completion completes commands and each command's options.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using router::test::quote;
using router::test::slurp;

const fs::path kAppsDir = fs::path(ROUTER_BINARY).parent_path();

// `cmd`'s standard output.
std::string output_of(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  return {std::istream_iterator<std::string>(in), {}};
}

// Every short and long option that `command --help` lists ("  -m,--model TEXT ..." -> -m --model).
std::vector<std::string> flags_of(const std::string& command) {
  return words_of(output_of(command + " --help | grep -E '^  -' | sed -E 's/^  //; s/[ =].*$//' | "
                                      "tr ',' ' '"));
}

TEST(Install, ManPageAndCompletionListEveryCommandAndOption) {
  const std::string man = slurp((kAppsDir / "router.1").string());
  const std::string completion = slurp((kAppsDir / "router.bash").string());
  ASSERT_FALSE(man.empty());
  ASSERT_FALSE(completion.empty());
  const std::string router = quote(ROUTER_BINARY);
  const auto commands = words_of(
      output_of(router + " --help | awk '/^Subcommands:/ { f = 1; next } f && NF { print $1 }'"));
  ASSERT_GE(commands.size(), 10u);
  for (const auto& c : commands) {
    std::string upper = c;
    for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_NE(man.find(".SH \"ROUTER " + upper + "\""), std::string::npos) << c;
    const auto flags = flags_of(router + " " + c);
    for (const auto& f : flags) {
      EXPECT_NE(man.find(f), std::string::npos) << c << " " << f;
      EXPECT_NE(completion.find(" " + f + " "), std::string::npos) << c << " " << f;
    }
  }
  EXPECT_EQ(std::system(("bash -n " + quote((kAppsDir / "router.bash").string())).c_str()), 0);
}

TEST(Install, RoutercManPageListsEveryOption) {
  const std::string man = slurp((kAppsDir / "routerc.1").string());
  ASSERT_NE(man.find(".TH ROUTERC 1"), std::string::npos) << man;
  const auto flags = flags_of(quote(ROUTERC_BINARY));
  ASSERT_GE(flags.size(), 6u);
  for (const auto& f : flags) EXPECT_NE(man.find(f), std::string::npos) << f;
}

TEST(Install, CompletionCompletesCommandsAndOptions) {
  const std::string complete = "bash -c 'source " + quote((kAppsDir / "router.bash").string()) +
                               "; COMP_WORDS=($0); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                               "_router; echo \"${COMPREPLY[*]}\"' ";
  EXPECT_EQ(output_of(complete + "'router clas'"), "classify\n");
  EXPECT_EQ(output_of(complete + "'router train --tr'"), "--train\n");
  EXPECT_EQ(output_of(complete + "'router filter --no'"), "--no-header-rules\n");
}

TEST(Install, InstallPutsBinaryManPageAndCompletionUnderThePrefix) {
  router::test::TempDir tmp("router_install");
  const std::string build = kAppsDir.parent_path().string();
  if (::access(build.c_str(), W_OK) != 0) {
    GTEST_SKIP() << "cmake --install writes install_manifest.txt into the build folder " << build
                 << ", which this user cannot write";
  }
  const std::string cmd =
      "cmake --install " + quote(build) + " --prefix " + quote(tmp.dir()) + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  for (const char* f :
       {"bin/router", "bin/routerc", "libexec/router/router-serve", "share/man/man1/router.1",
        "share/man/man1/routerc.1", "share/bash-completion/completions/router"}) {
    EXPECT_TRUE(fs::exists(tmp.path(f))) << f;
  }
  // The installed router finds the installed router-serve for `router serve`.
  const std::string help = tmp.path("help.txt");
  ASSERT_EQ(std::system((quote(tmp.path("bin/router")) + " serve --help > " + quote(help)).c_str()),
            0);
  EXPECT_NE(router::test::slurp(help).find("--max-body"), std::string::npos);
}

// Only `router serve` pays for the HTTP server's libraries: router itself does not link them.
TEST(Install, OnlyRouterServeLinksTheHttpServer) {
  router::test::TempDir tmp("router_ldd");
  const std::string out = tmp.path("ldd.txt");
  ASSERT_EQ(
      std::system(("ldd " + quote((kAppsDir / "router").string()) + " > " + quote(out)).c_str()),
      0);
  const std::string linked = router::test::slurp(out);
  EXPECT_EQ(linked.find("httplib"), std::string::npos) << linked;
  EXPECT_EQ(linked.find("libssl"), std::string::npos) << linked;
}

// routerc starts once per message, so it links the C library and nothing of router's (the
// sanitized build links the C++ runtime dynamically, as its runtime needs).
TEST(Install, RoutercLinksNoLibraryOfRouters) {
  const std::string linked = output_of("ldd " + quote(ROUTERC_BINARY));
  ASSERT_NE(linked.find("libc.so"), std::string::npos) << linked;
  for (const char* lib :
       {"gmime", "glib", "sentencepiece", "protobuf", "httplib", "spdlog", "libssl"}) {
    EXPECT_EQ(linked.find(lib), std::string::npos) << lib << "\n" << linked;
  }
  bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__)
  sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  sanitized = true;
#endif
#endif
  if (!sanitized) {
    EXPECT_EQ(linked.find("libstdc++"), std::string::npos) << linked;
  }
}

}  // namespace
