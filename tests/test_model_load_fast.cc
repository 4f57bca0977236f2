// The loader's fast path (lib/model/number_scan.h) against its slow path. Both must give the same
// model bit for bit; the fast path must give up, never guess, on anything unusual. The slow path is
// forced by spelling the key "tensors" with an escape, which the fast path leaves alone.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/errors.h"
#include "model/json_format.h"
#include "model/number_scan.h"

namespace {

std::string read(const std::string& relative) {
  std::ifstream in(std::string(ROUTER_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string slow_spelling(std::string text) {
  const size_t at = text.find("\"tensors\"");
  EXPECT_NE(at, std::string::npos);
  return text.replace(at, 9, "\"tens\\u006frs\"");
}

void expect_same_bits(const router::Model& a, const router::Model& b) {
  auto ta = router::tensors(a.params());
  auto tb = router::tensors(b.params());
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) {
    ASSERT_EQ(ta[i].size, tb[i].size) << ta[i].name;
    EXPECT_EQ(std::memcmp(ta[i].data, tb[i].data, ta[i].size * sizeof(float)), 0) << ta[i].name;
  }
  EXPECT_EQ(a.labels(), b.labels());
  EXPECT_EQ(a.temperature(), b.temperature());
  EXPECT_EQ(a.metadata(), b.metadata());
}

TEST(ModelLoadFast, SplitsEveryTensorOfTheFixture) {
  const std::string text = read("tests/fixtures/models/tiny.json");
  auto split = router::split_tensor_data(text, 64);
  ASSERT_TRUE(split.has_value());
  router::Model m = router::load_model_from_string(text, "tiny.json");
  auto refs = router::tensors(m.params());
  EXPECT_EQ(split->data.size(), refs.size());
  EXPECT_LT(split->rest.size(), text.size() / 2) << "the numbers are most of the file";
  for (const auto& r : refs) {
    std::vector<float> got(r.size);
    ASSERT_EQ(router::parse_floats(split->data.at(r.name), got.data(), r.size), r.size) << r.name;
    EXPECT_EQ(std::memcmp(got.data(), r.data, r.size * sizeof(float)), 0) << r.name;
  }
  EXPECT_EQ(split->rest.find("\"data\": [0"), std::string::npos);
}

TEST(ModelLoadFast, SameBitsAsTheSlowPath) {
  for (const char* file : {"tests/fixtures/models/tiny.json", "models/crumb.json"}) {
    SCOPED_TRACE(file);
    const std::string text = read(file);
    ASSERT_FALSE(router::split_tensor_data(slow_spelling(text), 64).has_value())
        << "the escaped key must keep the fast path away";
    expect_same_bits(router::load_model_from_string(text, file),
                     router::load_model_from_string(slow_spelling(text), file));
  }
}

TEST(ModelLoadFast, NumberSpellingsMatchTheDomParse) {
  // Every JSON spelling of a number, including ones that round or underflow as a float.
  const std::string numbers = "0, -0, 1, -1.5, 0.1, 1e-3, 1E+2, 2.5e-50, 3.4028234e38, 1e-45";
  const std::string doc = "{\"tensors\": {\"a\": {\"data\": [" + numbers + "]}}}";
  auto split = router::split_tensor_data(doc, 64);
  ASSERT_TRUE(split.has_value());
  const std::vector<float> want = {0.0f,
                                   -0.0f,
                                   1.0f,
                                   -1.5f,
                                   static_cast<float>(0.1),
                                   static_cast<float>(1e-3),
                                   100.0f,
                                   static_cast<float>(2.5e-50),
                                   static_cast<float>(3.4028234e38),
                                   static_cast<float>(1e-45)};
  std::vector<float> got(want.size());
  ASSERT_EQ(router::parse_floats(split->data.at("a"), got.data(), 4), 10) << "counts them all";
  ASSERT_EQ(router::parse_floats(split->data.at("a"), got.data(), 10), 10);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << i;
  }
  EXPECT_EQ(split->rest, "{\"tensors\": {\"a\": {\"data\": []}}}");
  EXPECT_EQ(router::parse_floats(" ", got.data(), 10), 0);
}

TEST(ModelLoadFast, GivesUpOnAnythingUnusual) {
  const char* cases[] = {
      "{\"tensors\": {\"a\": {\"data\": [01]}}}",   // leading zero
      "{\"tensors\": {\"a\": {\"data\": [1.]}}}",   // no fraction digits
      "{\"tensors\": {\"a\": {\"data\": [inf]}}}",  // not JSON
      "{\"tensors\": {\"a\": {\"data\": [nan]}}}",
      "{\"tensors\": {\"a\": {\"data\": [1e39]}}}",                       // not a finite float
      "{\"tensors\": {\"a\": {\"data\": [1e400]}}}",                      // not a finite double
      "{\"tensors\": {\"a\": {\"data\": [1,]}}}",                         // trailing comma
      "{\"tensors\": {\"a\": {\"data\": [1 2]}}}",                        // missing comma
      "{\"tensors\": {\"a\": {\"data\": [\"1\"]}}}",                      // a string
      "{\"tensors\": {\"a\": {\"data\": [1]}, \"a\": {\"data\": [2]}}}",  // duplicate tensor
      "{\"tensors\": {\"a\": {\"data\": [1]}}",                           // truncated
      "{\"tensors\": {\"a\": {\"data\": [1]}}} x",                        // trailing text
      "{\"tensors\": {\"a\": {\"data\": [1]}}, \"s\": \"unterminated}",
      "{\"tensors\": {\"a\": {\"data\": [[1]]}}}",  // nested
  };
  for (const char* c : cases) {
    // Either the scan gives up, or reading the numbers does.
    auto split = router::split_tensor_data(c, 64);
    bool refused = !split.has_value();
    if (split) {
      for (const auto& [name, inside] : split->data) {
        float out[4];
        refused = refused || router::parse_floats(inside, out, 4) < 0;
      }
    }
    EXPECT_TRUE(refused) << c;
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  EXPECT_FALSE(router::split_tensor_data("{\"x\": " + deep + "}", 64).has_value());
}

TEST(ModelLoadFast, ErrorsStillComeFromTheSlowPath) {
  std::string text = read("tests/fixtures/models/tiny.json");
  const size_t at = text.find("\"data\": [") + 9;
  text.replace(at, text.find(',', at) - at, "1e39");  // the first number, too big for a float
  try {
    router::load_model_from_string(text, "big.json");
    FAIL() << "expected a ModelError";
  } catch (const router::ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("big.json: /tensors/"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/data/0: not a finite 32-bit number"), std::string::npos)
        << e.what();
  }
}

}  // namespace

namespace {

// parse_floats against from_chars(double) narrowed to float, on every spelling a model file
// can hold: shortest floats, full 17-digit doubles, exponents near the fast path's limits.
TEST(ModelLoadFast, NumbersMatchFromChars) {
  std::vector<std::string> texts;
  uint64_t state = 42;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 11;
  };
  for (int i = 0; i < 20000; ++i) {
    const double mag = std::ldexp(static_cast<double>(next()) / 9007199254740992.0,
                                  static_cast<int>(next() % 160) - 100);
    const double v = next() % 2 ? -mag : mag;
    char buf[64];
    texts.emplace_back(buf, std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)).ptr);
    texts.emplace_back(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    std::snprintf(buf, sizeof buf, "%.17g", v);
    texts.emplace_back(buf);
  }
  for (const char* t : {"0", "-0", "1e22", "1e23", "123456789012345e-22", "1234567890123456e-3",
                        "0.000000000000000000000001", "9007199254740993", "1e-45", "7e-46"}) {
    texts.emplace_back(t);
  }
  for (const std::string& t : texts) {
    double d = 0;
    std::from_chars(t.data(), t.data() + t.size(), d);
    const float want = static_cast<float>(d);
    float got = 0;
    ASSERT_EQ(router::parse_floats(t, &got, 1), 1) << t;
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << t << ": " << got << " vs " << want;
  }
}

}  // namespace
