// Checks the reader of the Crumb generator's data files (tools/tsv_file.h) and the phrase tables
// built on it (tools/crumb_phrases.h): a well-formed file reads back with its escapes undone and
// its line numbers; each kind of broken file, and each broken link between the tables, fails with
// a message naming the file, the line and what is wrong; crumb_gen then exits 3.
#include "tsv_file.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "crumb_phrases.h"

namespace {

namespace fs = std::filesystem;
using router::crumb::PhraseError;
using router::crumb::TsvFile;

const std::vector<std::string> kColumns = {"use", "n", "text"};
constexpr std::string_view kUses[] = {"all", "held", "dev"};

// A fresh folder per test, removed at the end.
class CrumbPhraseFile : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("router-phrases-" + std::to_string(::getpid()) + "-" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // Reads the file as the generator reads a table: every use and every n checked.
  static void read_all(const fs::path& path) {
    const TsvFile file(path, kColumns);
    for (const auto& row : file.rows()) {
      file.choice(row, "use", kUses);
      file.number(row, "n", 1, 99);
    }
  }

  fs::path dir_;
};

TEST_F(CrumbPhraseFile, ReadsRowsWithEscapesUndone) {
  const fs::path path = write("good.tsv",
                              "# a comment\n"
                              "use\tn\ttext\n"
                              "\n"
                              "all\t1\tplain words, \"quoted\", {placeholder} and ₹850 🙏\n"
                              "# between rows\n"
                              "held\t22\t--\\n{name}\\tafter a tab\\\\not an escape\n"
                              "dev\t3\tno newline at the end");
  const TsvFile file(path, kColumns);
  ASSERT_EQ(file.rows().size(), 3u);
  EXPECT_EQ(file.rows()[0].line, 4);
  EXPECT_EQ(file.field(file.rows()[0], "text"),
            "plain words, \"quoted\", {placeholder} and ₹850 🙏");
  EXPECT_EQ(file.rows()[1].line, 6);
  EXPECT_EQ(file.field(file.rows()[1], "text"), "--\n{name}\tafter a tab\\not an escape");
  EXPECT_EQ(file.choice(file.rows()[1], "use", kUses), 1u);
  EXPECT_EQ(file.number(file.rows()[1], "n", 1, 99), 22);
  EXPECT_EQ(file.rows()[2].line, 7);
  EXPECT_EQ(file.field(file.rows()[2], "text"), "no newline at the end");
}

// Each broken file and the message it must give, after the file's path.
struct Broken {
  const char* name;
  std::string bytes;
  std::string message;
};

TEST_F(CrumbPhraseFile, BrokenFilesNameFileAndLine) {
  const std::string header = "use\tn\ttext\n";
  const std::vector<Broken> cases = {
      {"empty", "", ": no header line (want use, n, text)"},
      {"only_comments", "# nothing\n\n# here\n", ": no header line (want use, n, text)"},
      {"wrong_header", "# first\nuse\ttext\n",
       ":2: the header names the columns use, text; want use, n, text"},
      {"too_few_fields", header + "all\t1\tfine\nall\tno number\n",
       ":3: 2 fields, want 3 (use, n, text)"},
      {"too_many_fields", header + "all\t1\ta\tb\n", ":2: 4 fields, want 3 (use, n, text)"},
      {"empty_field", header + "all\t1\t\n", ":2: column text is empty"},
      {"unknown_escape", header + "all\t1\tC:\\path\n",
       ":2: column text: unknown escape \\p (only \\t, \\n and \\\\)"},
      {"lone_backslash", header + "all\t1\tends in \\\n",
       ":2: column text: ends in a lone backslash (write \\\\ for a backslash)"},
      {"carriage_return", header + "all\t1\ttext\r\n",
       ":2: carriage return (the file must have Unix line ends)"},
      {"control_character", header + "all\t1\tbell\a\n",
       ":2: control character (byte 7; write \\t or \\n)"},
      {"not_utf8", header + "all\t1\tLatin-1 \xe9t\xe9\n", ":2: not UTF-8"},
      {"overlong_utf8", header + "all\t1\t\xc0\xaf\n", ":2: not UTF-8"},
      {"unknown_use", header + "all\t1\tfine\nhold\t1\ttext\n",
       ":3: column use: unknown value 'hold' (want all, held or dev)"},
      {"number_out_of_range", header + "all\t100\ttext\n",
       ":2: column n: '100' is not a whole number from 1 to 99"},
      {"number_not_digits", header + "all\t-1\ttext\n",
       ":2: column n: '-1' is not a whole number from 1 to 99"},
  };
  for (const Broken& c : cases) {
    const fs::path path = write(std::string(c.name) + ".tsv", c.bytes);
    try {
      read_all(path);
      ADD_FAILURE() << c.name << ": read without an error";
    } catch (const PhraseError& e) {
      EXPECT_EQ(e.what(), path.string() + c.message) << c.name;
    }
  }
}

TEST_F(CrumbPhraseFile, MissingFileIsNamed) {
  const fs::path path = dir_ / "absent.tsv";
  try {
    read_all(path);
    ADD_FAILURE() << "a missing file read without an error";
  } catch (const PhraseError& e) {
    EXPECT_EQ(e.what(), path.string() + ": cannot read (No such file or directory)");
  }
}

// ---- The phrase tables --------------------------------------------------------------------------

const fs::path kPhrases = fs::path(ROUTER_SOURCE_DIR) / "data" / "crumb" / "phrases";

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The 1-based line of the first line of `text` that starts with `prefix`.
int line_of(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n)
    if (line.rfind(prefix, 0) == 0) return n;
  ADD_FAILURE() << "no line starts with " << prefix;
  return 0;
}

// A copy of the committed tables with one file edited.
class CrumbPhrases : public CrumbPhraseFile {
 protected:
  // Copies the tables, replaces `file` with edit(its text), and returns the copy's folder.
  fs::path broken(const std::string& file, const std::function<std::string(std::string)>& edit) {
    const fs::path dir = dir_ / "phrases";
    fs::remove_all(dir);
    fs::copy(kPhrases, dir);
    std::ofstream(dir / file, std::ios::binary) << edit(read_text(kPhrases / file));
    return dir;
  }
  // The message load_phrases gives for `dir`, or "" when it loads.
  static std::string load_error(const fs::path& dir) {
    try {
      router::crumb::load_phrases(dir);
    } catch (const PhraseError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(CrumbPhrases, CommittedTablesLoad) {
  const router::crumb::Phrases phrases = router::crumb::load_phrases(kPhrases);
  EXPECT_EQ(phrases.families.size(), 14u);
  for (const auto& modes : phrases.modes) EXPECT_FALSE(modes.empty());
}

TEST_F(CrumbPhrases, BrokenLinksNameFileAndLine) {
  const std::string letters = read_text(kPhrases / "letters.tsv");
  const std::string pairs = read_text(kPhrases / "pairs.tsv");
  const std::string modes = read_text(kPhrases / "modes.tsv");
  const std::string families = read_text(kPhrases / "families.tsv");
  const auto lines = [](const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  const auto replace = [](std::string from, std::string to, bool all = false) {
    return [=](std::string text) {
      for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
        text.replace(at, from.size(), to);
        if (!all) break;
      }
      return text;
    };
  };
  const auto append = [](std::string row) { return [=](std::string text) { return text + row; }; };
  struct Case {
    std::string file;
    std::function<std::string(std::string)> edit;
    std::string message;  // after the folder
  };
  const std::vector<Case> cases = {
      {"letters.tsv", append("farewells\tall\tBye,\n"),
       "/letters.tsv:" + std::to_string(lines(letters) + 1) +
           ": unknown table farewells (this file holds greetings, signoffs, "},
      {"letters.tsv", replace("greetings\t", "# greetings\t", true),
       "/letters.tsv: no table greetings"},
      {"letters.tsv", append("greetings\tall\tHowdy,\n"),
       "/letters.tsv:" + std::to_string(lines(letters) + 1) +
           ": table greetings resumes here; its rows (from line " +
           std::to_string(line_of(letters, "greetings\t")) + ") must be together"},
      {"singles.tsv", append("orphan_stories\tall\tA story nothing tells.\n"),
       "/singles.tsv:" + std::to_string(lines(read_text(kPhrases / "singles.tsv")) + 1) +
           ": table orphan_stories is not used by any mode in modes.tsv"},
      {"modes.tsv", replace("\tproblem_stories\t", "\tproblem_storys\t"),
       "/modes.tsv:" + std::to_string(line_of(modes, "refund_item\t")) +
           ": column stories: no table problem_storys in singles.tsv"},
      {"pairs.tsv", replace("late_and_broken_stories\tall", "late_and_broken_stories\theld", true),
       "/pairs.tsv:" + std::to_string(line_of(pairs, "late_and_broken_stories\t")) +
           ": table late_and_broken_stories has no entry with use all"},
      {"families.tsv", replace("\tfeedback\trefund_item\t", "\tfeedback\trefund_items\t"),
       "/families.tsv:" + std::to_string(line_of(families, "feedback_vs_refund\t")) +
           ": column label_b: unknown value 'refund_items' (want refund_item, "},
      {"typos.tsv", [](std::string) { return std::string("word\ttypo\nrefund\n"); },
       "/typos.tsv:2: 1 fields, want 2 (word, typo)"},
  };
  for (const Case& c : cases) {
    const fs::path dir = broken(c.file, c.edit);
    const std::string error = load_error(dir);
    EXPECT_EQ(error.rfind(dir.string() + c.message, 0), 0u)
        << c.file << ": got '" << error << "', want it to start with '" << dir.string() << c.message
        << "'";
  }
}

TEST_F(CrumbPhrases, MissingFileIsNamed) {
  const fs::path dir = broken("typos.tsv", [](std::string text) { return text; });
  fs::remove(dir / "typos.tsv");
  EXPECT_EQ(load_error(dir),
            (dir / "typos.tsv").string() + ": cannot read (No such file or directory)");
}

// crumb_gen reports a broken table on one line of stderr, exits 3 and writes nothing.
TEST_F(CrumbPhrases, CrumbGenExitsThreeAndWritesNothing) {
  const fs::path dir = broken("products.tsv", [](std::string text) {
    return text + "all\tcake\tplum cake\ta plum cake\tcake\tno\t900\t800\n";
  });
  const std::string products = read_text(dir / "products.tsv");
  const int line = static_cast<int>(std::count(products.begin(), products.end(), '\n'));
  const fs::path out = dir_ / "out", log = dir_ / "stderr.txt";
  const std::string cmd = std::string("\"") + ROUTER_CRUMB_GEN + "\" --out \"" + out.string() +
                          "\" --phrases \"" + dir.string() + "\" 2>\"" + log.string() + "\"";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << cmd;
  EXPECT_EQ(WEXITSTATUS(status), 3) << cmd;
  EXPECT_EQ(read_text(log), "crumb_gen: " + (dir / "products.tsv").string() + ":" +
                                std::to_string(line) + ": price_hi is below price_lo\n");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
