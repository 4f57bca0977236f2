// The model-file loader against a table of deliberately broken files. Each case takes the tiny
// fixture model (tests/fixtures/models/tiny.json), breaks it in one way and expects a ModelError
// naming the file, the JSON path and the specific problem, with nothing allocated from a hostile
// size first. Also: JSON and binary round trips reproduce the model exactly, a damaged binary
// blob is refused, and `router classify` on a broken file exits 4 with one line naming it.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "base/errors.h"
#include "model/binary_format.h"
#include "model/json_format.h"

#include "test_support.h"

namespace {

using router::test::quote;
using router::test::spit;
using CliRun = router::test::CommandResult;

using ojson = nlohmann::ordered_json;

const std::string& tiny_text() {
  static const std::string text = [] {
    std::ifstream in(std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/models/tiny.json",
                     std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  return text;
}

const ojson& tiny() {
  static const ojson j = ojson::parse(tiny_text());
  return j;
}

// Edits the parsed fixture and serializes it.
std::string edited(const std::function<void(ojson&)>& edit) {
  ojson j = tiny();
  edit(j);
  return j.dump();
}

// Replaces the first `from` in the serialized fixture with `to`: for text nlohmann cannot write.
std::string replaced(const std::string& from, const std::string& to) {
  std::string text = tiny().dump();
  const size_t at = text.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "'" << from << "' is not in the fixture";
    return text;
  }
  return text.replace(at, from.size(), to);
}

// The same, after an edit that plants a marker value.
std::string planted(const std::function<void(ojson&)>& edit, const std::string& marker,
                    const std::string& to) {
  ojson j = tiny();
  edit(j);
  std::string text = j.dump();
  const size_t at = text.find(marker);
  if (at == std::string::npos) {
    ADD_FAILURE() << "marker '" << marker << "' not found";
    return text;
  }
  return text.replace(at, marker.size(), to);
}

struct Broken {
  std::string name;
  std::function<std::string()> make;
  std::string path;    // the JSON path the message must name ("" when there is none)
  std::string phrase;  // what the message must say about it
};

std::ostream& operator<<(std::ostream& os, const Broken& b) { return os << b.name; }

std::vector<Broken> broken_files() {
  const std::string qkv = "layers.0.attn.qkv.weight";
  return {
      {"truncated_json", [] { return tiny_text().substr(0, tiny_text().size() / 2); }, "",
       "not valid JSON"},
      {"empty_text", [] { return std::string(); }, "", "not valid JSON"},
      {"not_an_object", [] { return std::string("[1, 2, 3]"); }, "/", "expected a JSON object"},
      {"wrong_format", [] { return edited([](ojson& j) { j["format"] = "router-modle"; }); },
       "/format", "expected 'router-model'"},
      {"wrong_version", [] { return edited([](ojson& j) { j["version"] = 2; }); }, "/version",
       "unsupported version 2"},
      {"version_not_integer", [] { return edited([](ojson& j) { j["version"] = "1"; }); },
       "/version", "expected an integer"},
      {"missing_format", [] { return edited([](ojson& j) { j.erase("format"); }); }, "/",
       "missing key 'format'"},
      {"missing_config_key", [] { return edited([](ojson& j) { j["config"].erase("d_ff"); }); },
       "/config", "missing key 'd_ff'"},
      {"unknown_top_level_key", [] { return edited([](ojson& j) { j["extra"] = 1; }); }, "/",
       "unknown key 'extra'"},
      {"unknown_config_key", [] { return edited([](ojson& j) { j["config"]["dropout"] = 0.1; }); },
       "/config", "unknown key 'dropout'"},
      {"unknown_positional",
       [] { return edited([](ojson& j) { j["config"]["positional"] = "learned"; }); },
       "/config/positional", "got 'learned'"},
      {"unknown_pooling", [] { return edited([](ojson& j) { j["config"]["pooling"] = "sum"; }); },
       "/config/pooling", "expected 'mean', 'max' or 'attention', got 'sum'"},
      {"attention_pooling_without_its_query",
       [] { return edited([](ojson& j) { j["config"]["pooling"] = "attention"; }); }, "/tensors",
       "missing tensor 'pool.query'"},
      {"unknown_tensor",
       [] {
         return edited(
             [](ojson& j) { j["tensors"]["layers.1.ln1.bias"] = j["tensors"]["norm.bias"]; });
       },
       "/tensors", "unknown tensor 'layers.1.ln1.bias'"},
      {"missing_tensor", [] { return edited([](ojson& j) { j["tensors"].erase("norm.bias"); }); },
       "/tensors", "missing tensor 'norm.bias'"},
      {"unknown_tensor_field",
       [] { return edited([](ojson& j) { j["tensors"]["norm.bias"]["dtype"] = "f32"; }); },
       "/tensors/norm.bias", "unknown key 'dtype'"},
      // nlohmann keeps the last of two equal keys, so these are written by hand.
      {"duplicate_key",
       [] { return replaced("\"d_model\":16,", "\"d_model\":16,\"d_model\":16,"); },
       "/config/d_model", "duplicate key 'd_model'"},
      {"duplicate_tensor",
       [] {
         const std::string t = tiny()["tensors"]["norm.bias"].dump();
         return replaced("\"norm.bias\":", "\"norm.bias\":" + t + ",\"norm.bias\":");
       },
       "/tensors/norm.bias", "duplicate key 'norm.bias'"},
      {"duplicate_top_level_key",
       [] { return replaced("\"version\":1,", "\"version\":1,\"version\":1,"); }, "/version",
       "duplicate key 'version'"},
      {"wrong_tensor_shape",
       [qkv] { return edited([qkv](ojson& j) {
                 j["tensors"][qkv]["shape"] = {16, 48};
               }); },
       "/tensors/" + qkv + "/shape", "expected [48, 16], got [16,48]"},
      {"wrong_tensor_rank",
       [] { return edited([](ojson& j) {
              j["tensors"]["norm.bias"]["shape"] = {16, 1};
            }); },
       "/tensors/norm.bias/shape", "expected [16], got [16,1]"},
      {"data_length_mismatch",
       [] { return edited([](ojson& j) { j["tensors"]["norm.weight"]["data"].erase(0); }); },
       "/tensors/norm.weight/data", "expected 16 numbers, got 15"},
      {"data_not_a_number",
       [] { return edited([](ojson& j) { j["tensors"]["norm.bias"]["data"][3] = "0.5"; }); },
       "/tensors/norm.bias/data/3", "expected a number"},
      {"nan_literal",
       [] {
         return planted([](ojson& j) { j["tensors"]["norm.bias"]["data"][0] = 12345.5; }, "12345.5",
                        "NaN");
       },
       "", "not valid JSON"},
      {"double_overflow_literal",
       [] {
         return planted([](ojson& j) { j["tensors"]["norm.bias"]["data"][0] = 12345.5; }, "12345.5",
                        "1e400");
       },
       "", "not valid JSON"},
      {"not_a_finite_float32",
       [] { return edited([](ojson& j) { j["tensors"]["norm.bias"]["data"][2] = 1e39; }); },
       "/tensors/norm.bias/data/2", "not a finite 32-bit number"},
      {"negative_d_model", [] { return edited([](ojson& j) { j["config"]["d_model"] = -16; }); },
       "/config/d_model", "out of range"},
      {"huge_d_model", [] { return edited([](ojson& j) { j["config"]["d_model"] = 1000000000; }); },
       "/config/d_model", "out of range"},
      {"d_model_beyond_int",
       [] { return edited([](ojson& j) { j["config"]["d_model"] = int64_t{1} << 40; }); },
       "/config/d_model", "integer out of range"},
      {"d_model_uint64_max",
       [] { return edited([](ojson& j) { j["config"]["d_model"] = ~uint64_t{0}; }); },
       "/config/d_model", "integer out of range"},
      {"d_model_not_integer",
       [] { return edited([](ojson& j) { j["config"]["d_model"] = 16.5; }); }, "/config/d_model",
       "expected an integer"},
      {"heads_do_not_divide", [] { return edited([](ojson& j) { j["config"]["n_heads"] = 3; }); },
       "/config/n_heads", "does not divide d_model 16"},
      {"heads_zero", [] { return edited([](ojson& j) { j["config"]["n_heads"] = 0; }); },
       "/config/n_heads", "out of range"},
      {"too_many_layers", [] { return edited([](ojson& j) { j["config"]["n_layers"] = 65; }); },
       "/config/n_layers", "out of range"},
      {"max_len_zero", [] { return edited([](ojson& j) { j["config"]["max_len"] = 0; }); },
       "/config/max_len", "out of range"},
      {"labels_not_array", [] { return edited([](ojson& j) { j["labels"] = "a,b"; }); }, "/labels",
       "expected an array of strings"},
      {"labels_empty", [] { return edited([](ojson& j) { j["labels"] = ojson::array(); }); },
       "/labels", "got 0"},
      {"single_label", [] { return edited([](ojson& j) { j["labels"] = {"thanks"}; }); }, "/labels",
       "got 1"},
      {"duplicate_label", [] { return edited([](ojson& j) {
                                 j["labels"] = {"a", "b", "a"};
                               }); },
       "/labels/2", "duplicate label 'a'"},
      {"empty_label", [] { return edited([](ojson& j) { j["labels"][1] = ""; }); }, "/labels/1",
       "empty label"},
      {"label_not_string", [] { return edited([](ojson& j) { j["labels"][0] = 7; }); }, "/labels/0",
       "expected a string"},
      {"more_labels_than_classifier_rows",
       [] { return edited([](ojson& j) { j["labels"].push_back("refund"); }); },
       "/tensors/classifier.weight/shape", "expected [4, 16]"},
      {"vocab_entry_differs",
       [] { return edited([](ojson& j) { j["tokenizer"]["vocab"][5] = "zzz"; }); },
       "/tokenizer/vocab/5", "differs from the model's piece"},
      {"vocab_count_mismatch",
       [] { return edited([](ojson& j) { j["tokenizer"]["vocab"].erase(299); }); },
       "/tokenizer/vocab", "has 299 pieces but the model has 300"},
      {"tokenizer_type",
       [] { return edited([](ojson& j) { j["tokenizer"]["type"] = "wordpiece"; }); },
       "/tokenizer/type", "unknown tokenizer type"},
      {"tokenizer_base64_garbage",
       [] { return edited([](ojson& j) { j["tokenizer"]["model"] = "!!not*base64!!"; }); },
       "/tokenizer/model", "invalid base64"},
      {"tokenizer_not_sentencepiece",
       [] {
         return edited([](ojson& j) {
           j["tokenizer"]["model"] = router::base64_encode("these bytes are no tokenizer at all");
         });
       },
       "/tokenizer/model", "tokenizer: "},
      {"temperature_negative",
       [] { return edited([](ojson& j) { j["calibration"]["temperature"] = -1.5; }); },
       "/calibration/temperature", "expected a finite number > 0"},
      {"temperature_zero",
       [] { return edited([](ojson& j) { j["calibration"]["temperature"] = 0; }); },
       "/calibration/temperature", "expected a finite number > 0"},
      {"metadata_not_object", [] { return edited([](ojson& j) {
                                     j["metadata"] = {1, 2};
                                   }); },
       "/metadata", "expected an object"},
      {"deep_nesting",
       [] {
         return planted([](ojson& j) { j["metadata"]["deep"] = "MARKER"; }, "\"MARKER\"",
                        std::string(10000, '[') + std::string(10000, ']'));
       },
       "/metadata/deep/0/0/0", "nested deeper than 64 levels"},
      // 262144 x 1024 floats is 1 GiB; the shape is refused before anything is read or allocated.
      {"claimed_1gb_tensor",
       [] {
         return edited([](ojson& j) {
           j["tensors"]["embed.weight"] = {{"shape", {262144, 1024}}, {"data", {0.5, 0.25}}};
         });
       },
       "/tensors/embed.weight/shape", "expected [300, 16], got [262144,1024]"},
  };
}

class BrokenFile : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenFile, IsRejectedWithPathAndReason) {
  const Broken& b = GetParam();
  const std::string text = b.make();
  try {
    router::load_model_from_string(text, "broken.json");
    FAIL() << b.name << ": loaded without an error";
  } catch (const router::ModelError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("broken.json: ", 0), 0u) << what;
    if (!b.path.empty()) {
      EXPECT_NE(what.find("broken.json: " + b.path), std::string::npos)
          << "path " << b.path << " not in: " << what;
    }
    EXPECT_NE(what.find(b.phrase), std::string::npos) << "'" << b.phrase << "' not in: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line expected: " << what;
    EXPECT_EQ(e.code(), router::ExitCode::kBadModel);
  }
}

INSTANTIATE_TEST_SUITE_P(ModelFile, BrokenFile, ::testing::ValuesIn(broken_files()),
                         [](const auto& info) { return info.param.name; });

// Identical probabilities for a few emails, compared bit for bit.
void expect_same_predictions(const router::Model& a, const router::Model& b) {
  for (const char* email :
       {"where is my order", "please cancel my order 5521", "thanks, the cake was lovely", "ok"}) {
    const router::Prediction pa = a.predict(email), pb = b.predict(email);
    EXPECT_EQ(pa.label, pb.label) << email;
    EXPECT_EQ(pa.probs, pb.probs) << email;
  }
}

TEST(ModelFile, FixtureLoadsAndMatchesItsConfig) {
  const router::Model m = router::load_model_from_string(tiny_text(), "tiny.json");
  EXPECT_EQ(m.config().d_model, 16);
  EXPECT_EQ(m.config().n_heads, 2);
  EXPECT_EQ(m.config().n_layers, 1);
  EXPECT_EQ(m.config().d_ff, 32);
  EXPECT_EQ(m.config().max_len, 32);
  EXPECT_EQ(m.config().vocab_size, 300);
  EXPECT_EQ(m.labels(), (std::vector<std::string>{"cancel_order", "thanks", "where_is_order"}));
}

TEST(ModelFile, JsonRoundTripIsByteIdentical) {
  const router::Model m = router::load_model_from_string(tiny_text(), "tiny.json");
  const std::string once = router::model_to_json(m);
  EXPECT_EQ(once, tiny_text()) << "the fixture was written by the same saver";
  const router::Model again = router::load_model_from_string(once, "again.json");
  EXPECT_EQ(router::model_to_json(again), once);
  expect_same_predictions(m, again);
}

TEST(ModelFile, KeyOrderDoesNotMatter) {
  // nlohmann::json sorts keys alphabetically: "calibration" first, "version" last.
  const std::string sorted = nlohmann::json::parse(tiny_text()).dump();
  const router::Model a = router::load_model_from_string(tiny_text(), "tiny.json");
  const router::Model b = router::load_model_from_string(sorted, "sorted.json");
  expect_same_predictions(a, b);
}

TEST(ModelFile, BinaryRoundTripGivesIdenticalPredictions) {
  const router::Model m = router::load_model_from_string(tiny_text(), "tiny.json");
  const std::string blob = router::model_to_binary(m);
  const router::Model b = router::model_from_binary(blob, "tiny.bin");
  EXPECT_EQ(b.labels(), m.labels());
  EXPECT_EQ(b.temperature(), m.temperature());
  EXPECT_EQ(b.metadata(), m.metadata());
  expect_same_predictions(m, b);
  EXPECT_EQ(router::model_to_binary(b), blob);
  EXPECT_EQ(router::model_to_json(b), tiny_text());
}

// A model file with another pooling (`text`, its config's "pooling" `name`) keeps it through the
// JSON and the binary form, and it is what predicts: not the mean's probabilities.
void expect_pooling_kept_and_used(const std::string& text, const std::string& name,
                                  router::Pooling want) {
  const router::Model m = router::load_model_from_string(text, name + ".json");
  EXPECT_EQ(m.config().pooling, want);
  const std::string json = router::model_to_json(m);
  EXPECT_NE(json.find("\"pooling\":\"" + name + "\""), std::string::npos);
  expect_same_predictions(m, router::load_model_from_string(json, "again.json"));
  const router::Model b = router::model_from_binary(router::model_to_binary(m), name + ".bin");
  EXPECT_EQ(b.config().pooling, want);
  expect_same_predictions(m, b);
  const router::Model mean = router::load_model_from_string(tiny_text(), "tiny.json");
  EXPECT_NE(m.predict("please cancel my order 5521").probs,
            mean.predict("please cancel my order 5521").probs);
}

TEST(ModelFile, MaxPoolingRoundTripsAndIsUsed) {
  expect_pooling_kept_and_used(edited([](ojson& j) { j["config"]["pooling"] = "max"; }), "max",
                               router::Pooling::kMax);
}

// "pooling": "attention" brings its query tensor (a zero query would be the mean).
TEST(ModelFile, AttentionPoolingRoundTripsAndIsUsed) {
  const std::string text = edited([](ojson& j) {
    j["config"]["pooling"] = "attention";
    ojson q = j["tensors"]["norm.bias"];
    for (size_t i = 0; i < q["data"].size(); ++i) q["data"][i] = (i % 3 == 0 ? 2.5 : -1.5);
    j["tensors"]["pool.query"] = q;
  });
  expect_pooling_kept_and_used(text, "attention", router::Pooling::kAttention);
  EXPECT_NE(
      router::model_to_json(router::load_model_from_string(text, "a.json")).find("\"pool.query\""),
      std::string::npos);
}

// The table of known words rides after the tensors: the model predicts as before, its words are
// taken from the table, and a damaged table is refused by name.
TEST(ModelFile, BinaryWithKnownWordsRoundTrips) {
  const router::Model m = router::load_model_from_string(tiny_text(), "tiny.json");
  const std::string words = m.tokenizer().known_words_for({"where is my order", "refund it"});
  const std::string blob = router::model_to_binary(m, words);
  ASSERT_EQ(blob.size(), router::model_to_binary(m).size() + 4 + words.size());
  const router::Model b = router::model_from_binary(blob, "tiny.bin");
  expect_same_predictions(m, b);
  EXPECT_EQ(b.tokenizer().encode("where is my order"), m.tokenizer().encode("where is my order"));
  EXPECT_EQ(router::model_to_binary(b, words), blob);
  // Not borrowed, the model keeps nothing of the bytes: they may go at once.
  const router::Model c = router::model_from_binary(std::string(blob), "tiny.bin");
  EXPECT_EQ(c.tokenizer().encode("refund it"), m.tokenizer().encode("refund it"));
  std::string damaged = blob;
  damaged[damaged.size() - words.size()] = '\x7f';  // the table's word count
  try {
    router::model_from_binary(damaged, "damaged.bin");
    ADD_FAILURE() << "accepted";
  } catch (const router::ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("damaged.bin: bad table of known words"),
              std::string::npos)
        << e.what();
  }
}

void expect_binary_rejected(const std::string& blob, const std::string& phrase,
                            const std::string& what_case) {
  try {
    router::model_from_binary(blob, "broken.bin");
    ADD_FAILURE() << what_case << ": accepted";
  } catch (const router::ModelError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("broken.bin: ", 0), 0u) << what_case << ": " << what;
    EXPECT_NE(what.find(phrase), std::string::npos)
        << what_case << ": '" << phrase << "' not in: " << what;
  }
}

// The blob with its JSON header replaced by `header`.
std::string with_header(const std::string& blob, const nlohmann::json& header) {
  uint32_t old_len = 0;
  for (int i = 0; i < 4; ++i)
    old_len |= static_cast<uint32_t>(static_cast<uint8_t>(blob[8 + i])) << (8 * i);
  const std::string h = header.dump();
  std::string out = blob.substr(0, 8);
  for (int i = 0; i < 4; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return out + h + blob.substr(12 + old_len);
}

nlohmann::json header_of(const std::string& blob) {
  uint32_t len = 0;
  for (int i = 0; i < 4; ++i)
    len |= static_cast<uint32_t>(static_cast<uint8_t>(blob[8 + i])) << (8 * i);
  return nlohmann::json::parse(blob.substr(12, len));
}

TEST(ModelFile, DamagedBinaryIsRejected) {
  const router::Model m = router::load_model_from_string(tiny_text(), "tiny.json");
  const std::string blob = router::model_to_binary(m);
  for (size_t cut : {size_t{0}, size_t{5}, size_t{8}, size_t{10}, size_t{12}, size_t{40},
                     blob.size() / 2, blob.size() - 4, blob.size() - 1}) {
    expect_binary_rejected(blob.substr(0, cut), "truncated", "cut at " + std::to_string(cut));
  }
  expect_binary_rejected(blob + "x", "trailing bytes", "one byte too many");
  std::string magic = blob;
  magic[0] = 'X';
  expect_binary_rejected(magic, "bad magic", "bad magic");
  std::string huge_header = blob;
  huge_header[11] = '\x7f';  // header length ~2 GB
  expect_binary_rejected(huge_header, "truncated", "header length beyond the blob");
  std::string bad_json = blob;
  bad_json[12] = '[';
  expect_binary_rejected(bad_json, "bad binary model header", "header not JSON");

  nlohmann::json h = header_of(blob);
  auto changed = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json copy = h;
    edit(copy);
    return with_header(blob, copy);
  };
  expect_binary_rejected(changed([](auto& j) { j["d_model"] = 1000000000; }), "/config/d_model",
                         "huge d_model");
  expect_binary_rejected(changed([](auto& j) { j["n_heads"] = 3; }), "does not divide",
                         "heads not dividing");
  expect_binary_rejected(changed([](auto& j) { j["d_model"] = 32; }), "truncated",
                         "tensors larger than the blob");
  expect_binary_rejected(changed([](auto& j) { j["d_model"] = 8; }), "trailing bytes",
                         "tensors smaller than the blob");
  expect_binary_rejected(changed([](auto& j) { j.erase("labels"); }), "bad binary model header",
                         "missing labels");
  expect_binary_rejected(changed([](auto& j) { j["temperature"] = -1; }), "temperature",
                         "negative temperature");
  expect_binary_rejected(changed([](auto& j) {
                           j["labels"] = {"a", "b", "a"};
                         }),
                         "duplicate label", "duplicate label");
  expect_binary_rejected(changed([](auto& j) { j["labels"] = {"a"}; }), "labels", "single label");
  expect_binary_rejected(changed([](auto& j) { j["positional"] = "learned"; }), "positional",
                         "unknown positional");
  expect_binary_rejected(changed([](auto& j) { j["vocab_size"] = 999; }), "is not the tokenizer's",
                         "vocab_size not the tokenizer's");
  expect_binary_rejected(changed([](auto& j) { j["vocab_size"] = 0.5; }), "vocab_size",
                         "vocab_size not an integer");

  // A NaN where a weight should be.
  std::string nan_blob = blob;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan_blob.data() + nan_blob.size() - sizeof(float), &nan, sizeof nan);
  expect_binary_rejected(nan_blob, "finite", "NaN weight");
}

TEST(ModelFile, ClassifyWithBrokenFileExitsFourWithOneLine) {
  const router::test::TempDir dir("router_model_file");
  const std::string broken = dir.path("broken.json");
  spit(broken, edited([](ojson& j) { j["config"]["n_heads"] = 3; }));
  const CliRun r = router::test::run_router("classify -m " + quote(broken) + " x", dir.dir());
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line expected:\n" << r.err;
  EXPECT_NE(r.err.find(broken + ": /config/n_heads: 3 does not divide d_model 16"),
            std::string::npos)
      << r.err;
}

}  // namespace
