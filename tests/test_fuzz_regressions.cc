// Inputs that the fuzz targets (fuzz/) found to break something, kept so the bug stays fixed.
// Each file under tests/fixtures/fuzz/<target>/ goes through the same library call as its fuzz
// target, with the target's promise checked (a value, or the one typed error); the named tests
// below also check what the fixed code now says about each input (docs/reliability.md).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "input/dataset.h"
#include "input/mail.h"
#include "model/binary_format.h"
#include "model/json_format.h"
#include "model/model.h"
#include "test_support.h"
#include "text/utf8.h"

namespace router {
namespace {

namespace fs = std::filesystem;
using test::slurp;

std::string fixture(const std::string& target, const std::string& name) {
  return test::source_path("tests/fixtures/fuzz/" + target + "/" + name);
}

std::vector<std::string> inputs_of(const std::string& target) {
  std::vector<std::string> out;
  const fs::path dir = test::source_path("tests/fixtures/fuzz/" + target);
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

const Model& tiny() {
  static const Model model = load_model(test::source_path("tests/fixtures/models/tiny.json"));
  return model;
}

// ---- Every kept input, through its target's call ----------------------------------------------

TEST(FuzzRegressions, TokenizerInputs) {
  for (const auto& path : inputs_of("tokenizer")) {
    const std::string text = slurp(path);
    const auto ids = tiny().tokenizer().encode(text);
    for (int32_t id : ids) EXPECT_TRUE(id >= 0 && id < tiny().tokenizer().vocab_size()) << path;
    try {
      EXPECT_LE(static_cast<int>(tiny().encode(text).size()), tiny().config().max_len) << path;
    } catch (const InputError&) {
      EXPECT_TRUE(ids.empty()) << path;
    }
  }
}

TEST(FuzzRegressions, ModelJsonInputs) {
  for (const auto& path : inputs_of("model_json")) {
    try {
      load_model_from_string(slurp(path), "fuzz.json").predict("where is my order");
    } catch (const ModelError&) {
    }
  }
}

TEST(FuzzRegressions, ModelBinaryInputs) {
  for (const auto& path : inputs_of("model_binary")) {
    try {
      model_from_binary(slurp(path), "fuzz.bin").predict("where is my order");
    } catch (const ModelError&) {
    }
  }
}

TEST(FuzzRegressions, DatasetInputs) {
  for (const auto& path : inputs_of("dataset")) {
    try {
      RecordReader reader(path);
      Record r;
      while (reader.next(r)) {
      }
    } catch (const InputError&) {
    }
    try {
      read_examples(path, /*need_label=*/false);
    } catch (const InputError&) {
    }
  }
}

TEST(FuzzRegressions, MailInputs) {
  for (const auto& path : inputs_of("mail")) {
    try {
      const MailText m = parse_message(slurp(path), "fuzz.eml");
      for (const std::string* field : {&m.text, &m.message_id, &m.from, &m.date, &m.subject}) {
        EXPECT_TRUE(is_valid_utf8(*field)) << path;
      }
    } catch (const InputError&) {
    }
  }
}

// ---- Named regressions ------------------------------------------------------------------------

// A Date header with bytes that are not UTF-8 (0xD5 runs, an F7 lead byte) reached
// MailText::date as they were, and `router batch` on an mbox holding it stopped with an internal
// error when writing the record's JSON. Message-ID had the same gap.
TEST(FuzzRegressions, MailHeaderBytesAreMadeValidUtf8) {
  const MailText m = parse_message(slurp(fixture("mail", "date_header_invalid_utf8.eml")), "x");
  EXPECT_TRUE(is_valid_utf8(m.date)) << m.date;
  EXPECT_NE(m.date.find("\xEF\xBF\xBD"), std::string::npos) << "U+FFFD for the bad bytes";
  std::string raw = "From: a@b.in\nMessage-ID: <\xF7\xB2x@y>\nDate: Tue, 11 Nov 2026 \xD5\n\nhi\n";
  const MailText n = parse_message(raw, "y");
  EXPECT_TRUE(is_valid_utf8(n.message_id)) << n.message_id;
  EXPECT_TRUE(is_valid_utf8(n.date)) << n.date;
}

// A text part labelled charset=utf=8, which glibc's iconv takes for UTF-8 and converts without
// refusing F6 AC B8 98 (a code point beyond U+10FFFF), reached MailText::text as it was.
TEST(FuzzRegressions, ConvertedBodiesAreMadeValidUtf8) {
  const MailText m =
      parse_message(slurp(fixture("mail", "utf8_label_code_point_above_unicode.eml")), "x");
  EXPECT_TRUE(is_valid_utf8(m.text));
  EXPECT_EQ(m.text.find('\0'), std::string::npos) << "NUL bytes become spaces";
  const MailText n = parse_message(
      "From: a@b.in\nContent-Type: text/plain; charset=utf=8\n\nhi \xF6\xAC\xB8\x98 there\n", "y");
  EXPECT_TRUE(is_valid_utf8(n.text));
  EXPECT_NE(n.text.find("hi \xEF\xBF\xBD"), std::string::npos) << n.text;
}

// The binary header's integers were read with get<int>(), which casts a JSON float: 1e30 is
// undefined behaviour (UBSan: "outside the range of representable values of type 'int'") and
// 16.5 became 16. Each is now refused, in the kept files and in the current format's blob.
TEST(FuzzRegressions, BinaryHeaderIntegersMustBeIntegers) {
  for (const std::string name :
       {"header_d_model_1e30.bin", "header_n_heads_minus_1e300.bin", "header_d_model_16_5.bin"}) {
    EXPECT_THROW(model_from_binary(slurp(fixture("model_binary", name)), name), ModelError) << name;
  }
  const std::string blob = model_to_binary(tiny());
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i)
    len |= static_cast<uint32_t>(static_cast<uint8_t>(blob[8 + i])) << (8 * i);
  const auto header = nlohmann::json::parse(blob.substr(12, len));
  const std::vector<std::pair<std::string, nlohmann::json>> edits = {
      {"d_model", 1e30},          {"n_heads", -1e300},         {"d_model", 16.5},
      {"max_len", 4294967296ULL}, {"n_layers", -4294967296LL}, {"d_ff", "32"}};
  for (const auto& [key, value] : edits) {
    auto h = header;
    h[key] = value;
    const std::string text = h.dump();
    std::string edited = blob.substr(0, 8);
    for (int i = 0; i < 4; ++i) edited += static_cast<char>((text.size() >> (8 * i)) & 0xff);
    edited += text + blob.substr(12 + len);
    try {
      model_from_binary(edited, "edited.bin");
      ADD_FAILURE() << key << " = " << value.dump() << ": accepted";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find("edited.bin: bad binary model header"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace router
