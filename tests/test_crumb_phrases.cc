// Checks the reader of the Crumb generator's data files (tools/tsv_file.h): a well-formed file
// reads back with its escapes undone and its line numbers, and each kind of broken file fails
// with a message naming the file, the line and what is wrong.
#include "tsv_file.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

}  // namespace
