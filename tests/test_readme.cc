// Every command of the README's "Using it" and "Real email" blocks runs as written from the
// project root and exits 0. They run in a temporary directory that links examples/ and data/
// from the source tree, so the files they write (labelled.jsonl, my.json, pair.html, ...) land
// there and not in the sources; "router" is the binary under test.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

namespace {

// The lines of the first ```sh block after `heading`, comments and blank lines dropped.
std::vector<std::string> commands_after(const std::string& readme, const std::string& heading) {
  std::vector<std::string> out;
  const size_t at = readme.find("\n" + heading + "\n");
  EXPECT_NE(at, std::string::npos) << "README.md has no " << heading;
  if (at == std::string::npos) return out;
  const size_t begin = readme.find("```sh\n", at);
  const size_t end = readme.find("```\n", begin + 6);
  std::istringstream block(readme.substr(begin + 6, end - begin - 6));
  for (std::string line; std::getline(block, line);) {
    const size_t hash = line.find("  #");
    if (hash != std::string::npos) line.resize(hash);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

TEST(Readme, EveryCommandOfUsingItAndRealEmailRuns) {
  const std::string readme = router::test::slurp(router::test::source_path("README.md"));
  router::test::TempDir tmp("router_readme");
  for (const char* dir : {"examples", "data"}) {
    std::filesystem::create_directory_symlink(router::test::source_path(dir), tmp.path(dir));
  }
  int ran = 0;
  for (const char* heading : {"## Using it", "## Real email"}) {
    for (const auto& line : commands_after(readme, heading)) {
      ASSERT_EQ(line.rfind("router ", 0), 0u) << heading << ": not a router command: " << line;
      const std::string command = "cd " + router::test::quote(tmp.dir()) + " && " +
                                  router::test::quote(ROUTER_BINARY) + line.substr(6) +
                                  " > /dev/null 2> stderr.txt";
      const int status = std::system(command.c_str());
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << line << "\n"
          << router::test::slurp(tmp.path("stderr.txt"));
      ++ran;
    }
  }
  EXPECT_GE(ran, 20);
}

}  // namespace
