// router's SentencePiece module (lib/text/sentencepiece.h): opened only when a word is not in the
// model's table of known words, found next to the executable, and a clear error when missing.
#include "text/sentencepiece.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "errors.h"
#include "test_support.h"
#include "text/tokenizer.h"

namespace router {
namespace {

using test::quote;

// Every word of this is in the built-in model's table of known words; "xqzvbnmw" is in none.
const std::string kKnownWords = "Refund the delivery fee, not the cake.";
const std::string kUnknownWord = "Where is xqzvbnmw?";

// Sets an environment variable for the lifetime of the object (child processes inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST(SentencePieceModule, OpenedOnlyWhenAWordIsNotKnown) {
  const test::TempDir scratch("router_spm");
  const std::string known = test::libraries_loaded("classify " + quote(kKnownWords), scratch);
  EXPECT_EQ(known.find("sentencepiece"), std::string::npos) << known;
  const std::string unknown = test::libraries_loaded("classify " + quote(kUnknownWord), scratch);
  EXPECT_NE(unknown.find("lib/router/librouter_sentencepiece.so"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("libsentencepiece.so.0"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("libsentencepiece_train"), std::string::npos) << unknown;
}

TEST(SentencePieceModule, MissingModuleIsExit5NamingItOnlyWhenNeeded) {
  const test::TempDir scratch("router_spm");
  const std::string missing = scratch.path("none.so");
  const ScopedEnv env("ROUTER_SENTENCEPIECE_MODULE", missing);
  const auto r = test::run_router("classify " + quote(kUnknownWord), scratch.dir());
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("needs router's SentencePiece module (" + missing + "): "),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto fine = test::run_router("classify " + quote(kKnownWords), scratch.dir());
  EXPECT_EQ(fine.code, 0) << fine.err;
  EXPECT_NE(fine.out.find("refund_delivery_fee"), std::string::npos) << fine.out;
}

TEST(SentencePieceModule, ALibraryThatIsNotTheModuleIsExit5) {
  const test::TempDir scratch("router_spm");
  const ScopedEnv env("ROUTER_SENTENCEPIECE_MODULE", "libm.so.6");
  const auto r = test::run_router("classify " + quote(kUnknownWord), scratch.dir());
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("(libm.so.6): not a module for this router"), std::string::npos) << r.err;
}

TEST(SentencePieceModule, FoundBesideTheExecutablesDirectory) {
  const std::string path = spm::module_path();
  EXPECT_NE(path.find("/../lib/router/librouter_sentencepiece.so"), std::string::npos) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
}

TEST(SentencePieceModule, AnswersForEveryIdAndOnlyThose) {
  const Tokenizer tok = Tokenizer::train(
      {"refund the delivery fee", "refund the cake", "where is my order"}, 300);
  const auto model = spm::Model::parse(tok.serialized());
  const int n = model->size();
  ASSERT_EQ(n, tok.vocab_size());
  EXPECT_EQ(model->piece(0), "[PAD]");
  EXPECT_TRUE(model->is_control(0));
  EXPECT_EQ(model->unk_id(), 1);
  EXPECT_TRUE(model->is_byte(2));
  EXPECT_EQ(model->piece(2), "<0x00>");
  for (const int bad : {-1, n, 1 << 30}) {
    EXPECT_EQ(model->piece(bad), "") << bad;
    EXPECT_FALSE(model->is_control(bad)) << bad;
    EXPECT_FALSE(model->is_byte(bad)) << bad;
  }
  std::vector<int32_t> ids;
  model->encode("refund the cake", ids);
  ASSERT_FALSE(ids.empty());
  const std::vector<std::string> pieces = model->encode_pieces("refund the cake");
  ASSERT_EQ(pieces.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(model->piece(ids[i]), pieces[i]);
  EXPECT_EQ(model->decode(pieces), "refund the cake");
}

TEST(SentencePieceModule, GarbageIsNotAModel) {
  try {
    spm::Model::parse("this is not a serialized model");
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("not a valid SentencePiece model ("), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace router
