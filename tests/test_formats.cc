// The formats people have, told apart by content (lib/input/dataset.h): fastText lines, CSV with
// quoted fields across lines, TSV, each with a header naming "text"; batch and train read them
// as they read JSON Lines, and a table without a "text" column is a clear error.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "input/dataset.h"
#include "test_support.h"

namespace router {
namespace {

std::vector<Record> read_all(const std::string& path) {
  RecordReader reader(path);
  std::vector<Record> out;
  Record r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

class Formats : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& data) {
    test::spit(tmp_.path(name), data);
    return tmp_.path(name);
  }
  test::TempDir tmp_{"router_formats"};
};

TEST_F(Formats, FastTextLines) {
  const auto rs = read_all(write("ft.txt",
                                 "__label__refund Refund the cake, not the fee.\n\n"
                                 "__label__status __label__extra where is it\n"));
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].value["label"], "refund");
  EXPECT_EQ(rs[0].value["text"], "Refund the cake, not the fee.");
  EXPECT_EQ(rs[1].value["label"], "status");  // the first label is the record's
  EXPECT_EQ(rs[1].value["text"], "where is it");
  EXPECT_EQ(rs[1].where, tmp_.path("ft.txt") + ":3");
}

TEST_F(Formats, CsvWithQuotedFieldsAcrossLinesAndCrlf) {
  const auto rs = read_all(write("d.csv",
                                 "id,text,label\r\n1,\"Refund the cake, not the fee.\","
                                 "refund\r\n2,\"a \"\"quoted\"\"\nsecond line\",status\r\n"));
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].value.dump(),
            R"({"id":"1","text":"Refund the cake, not the fee.","label":"refund"})");
  EXPECT_EQ(rs[1].value["text"], "a \"quoted\"\nsecond line");
  EXPECT_EQ(rs[1].value["label"], "status");
}

TEST_F(Formats, TsvAndErrorsNamingTheLine) {
  const auto rs = read_all(write("d.tsv", "text\tlabel\nwhere is it\tstatus\n"));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].value["text"], "where is it");
  try {
    read_all(write("short.tsv", "text\tlabel\nonly one field\n"));
    FAIL() << "a short row was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.tsv:2: 1 fields, but the header names 2"),
              std::string::npos)
        << e.what();
  }
  try {
    read_all(write("no_text.csv", "body,label\nhello,x\n"));
    FAIL() << "a table without a text column was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no \"text\" column (it has: body, label)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Formats, TrainAndBatchReadCsv) {
  std::string csv = "text,label\n";
  for (int i = 0; i < 8; ++i) {
    csv += "\"where is my order " + std::to_string(i) + "\",status\n";
    csv += "\"please cancel, order " + std::to_string(i) + "\",cancel\n";
  }
  const std::string train = write("train.csv", csv);
  const auto t = test::run_router(
      "train --train " + test::quote(train) + " --epochs 1 -o " + test::quote(tmp_.path("m.json")),
      tmp_.dir());
  ASSERT_EQ(t.code, 0) << t.err;
  const auto b = test::run_router(
      "batch " + test::quote(train) + " -m " + test::quote(tmp_.path("m.json")), tmp_.dir());
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(test::parse_jsonl(b.out).size(), 16u);
}

}  // namespace
}  // namespace router
