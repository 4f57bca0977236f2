// Tests of the subword tokenizer (SentencePiece BPE behind our text pipeline) and of base64, the
// way its model is stored. A tokenizer trained on the fixed corpus in tests/fixtures/tokenizer/
// must reproduce the golden pieces, train deterministically, survive serialization, stay silent,
// never emit [UNK], and reject broken models with a ModelError that names where.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "base/errors.h"
#include "text/normalize.h"
#include "text/piece_subset.h"
#include "text/pretokenize.h"
#include "text/tokenizer.h"

namespace router {
namespace {

using nlohmann::json;

const std::string kFixtureDir = std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/tokenizer/";
const std::string kWordMark = "\xE2\x96\x81";

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// A JSON array literal of the pieces, ready to paste into cases.json after review.
std::string as_json(const std::vector<std::string>& pieces) { return json(pieces).dump(); }

// Note: keep the returned document in a variable before iterating over a member of it; a
// range-for over load_cases_doc().at("cases") would iterate a destroyed temporary.
json load_cases_doc() {
  std::ifstream in(kFixtureDir + "cases.json");
  if (!in) throw std::runtime_error("cannot open " + kFixtureDir + "cases.json");
  return json::parse(in);
}

std::vector<std::string> load_corpus() {
  std::ifstream in(kFixtureDir + "corpus.txt");
  if (!in) throw std::runtime_error("cannot open " + kFixtureDir + "corpus.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int fixture_vocab_size() { return load_cases_doc().at("vocab_size").get<int>(); }

// Trained once per test binary; every test below reads it through const methods only.
const Tokenizer& fixture_tokenizer() {
  static const Tokenizer tok = Tokenizer::train(load_corpus(), fixture_vocab_size());
  return tok;
}

std::string case_input(const json& c) {
  return c.contains("input_hex") ? from_hex(c.at("input_hex").get<std::string>())
                                 : c.at("input").get<std::string>();
}

// The corpus and the golden cases' inputs (invalid UTF-8, scripts, digits, emoji, bytes outside
// the vocabulary), to which a test adds texts of its own.
std::vector<std::string> corpus_and_cases() {
  std::vector<std::string> texts = load_corpus();
  const json doc = load_cases_doc();
  for (const auto& c : doc.at("cases")) texts.push_back(case_input(c));
  return texts;
}

// ---- golden pieces and the properties of a trained tokenizer ---------------------------------

TEST(Tokenizer, GoldenPieces) {
  const Tokenizer& tok = fixture_tokenizer();
  int checked = 0;
  const json doc = load_cases_doc();
  for (const auto& c : doc.at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    const auto got = tok.encode_pieces(case_input(c));
    ASSERT_FALSE(c.at("pieces").is_null())
        << "case '" << name << "' has no golden pieces; got " << as_json(got);
    const auto expected = c.at("pieces").get<std::vector<std::string>>();
    EXPECT_TRUE(got == expected) << "case '" << name << "'\n  expected " << as_json(expected)
                                 << "\n  got      " << as_json(got);
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

TEST(Tokenizer, ReservedPiecesComeFirst) {
  const Tokenizer& tok = fixture_tokenizer();
  ASSERT_GT(tok.vocab_size(), kReservedPieces);
  ASSERT_EQ(static_cast<int>(tok.vocab().size()), tok.vocab_size());
  EXPECT_EQ(tok.vocab()[kPadId], "[PAD]");
  EXPECT_EQ(tok.vocab()[kUnkId], "[UNK]");
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    EXPECT_EQ(tok.vocab()[2 + b], name) << "id " << 2 + b;
  }
  EXPECT_LE(tok.vocab_size(), fixture_vocab_size());
}

TEST(Tokenizer, IdsAndPiecesAgree) {
  const Tokenizer& tok = fixture_tokenizer();
  const json doc = load_cases_doc();
  for (const auto& c : doc.at("cases")) {
    const std::string input = case_input(c);
    const auto ids = tok.encode(input);
    const auto pieces = tok.encode_pieces(input);
    ASSERT_EQ(ids.size(), pieces.size()) << c.at("name");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ASSERT_GE(ids[i], 0);
      ASSERT_LT(ids[i], tok.vocab_size());
      EXPECT_EQ(tok.vocab()[ids[i]], pieces[i]) << c.at("name") << " position " << i;
    }
  }
}

// BPE-dropout: the same seed gives the same segmentations, in any thread and after any other
// sampling; a segmentation is always of the same text (its pieces spell the words), only finer;
// dropout 0 is plain encoding.
TEST(Tokenizer, SampledEncodingIsReproducibleAndSpellsTheSameText) {
  const Tokenizer& tok = fixture_tokenizer();
  const std::vector<std::string> corpus = load_corpus();
  const std::vector<std::string_view> texts(corpus.begin(), corpus.end());
  const auto a = tok.encode_sampled(texts, 0.2, 7);
  std::vector<std::vector<int32_t>> from_thread;
  std::thread([&] { from_thread = tok.encode_sampled(texts, 0.2, 7); }).join();
  EXPECT_EQ(a, tok.encode_sampled(texts, 0.2, 7));
  EXPECT_EQ(a, from_thread);
  EXPECT_NE(a, tok.encode_sampled(texts, 0.2, 8));
  const auto plain = tok.encode_sampled(texts, 0.0, 7);
  std::size_t plain_count = 0, sampled_count = 0, differ = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(plain[i], tok.encode(texts[i])) << "line " << i + 1;
    std::string spelled, expected;
    for (const int32_t id : a[i]) spelled += tok.vocab().at(id);
    for (const auto& piece : tok.encode_pieces(texts[i])) expected += piece;
    EXPECT_EQ(spelled, expected) << "line " << i + 1;
    plain_count += plain[i].size();
    sampled_count += a[i].size();
    differ += a[i] != plain[i];
  }
  EXPECT_GT(sampled_count, plain_count) << "dropped merges leave more, shorter pieces";
  EXPECT_GT(differ, texts.size() / 4);
}

TEST(Tokenizer, MisspellingsBecomeSeveralKnownPieces) {
  const Tokenizer& tok = fixture_tokenizer();
  for (const std::string word : {"refnd", "cakee", "pasword", "delivry"}) {
    const auto ids = tok.encode(word);
    const auto pieces = tok.encode_pieces(word);
    EXPECT_GE(ids.size(), 2u) << word << " -> " << as_json(pieces);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      EXPECT_NE(ids[i], kUnkId) << word << " -> " << as_json(pieces);
      EXPECT_GE(ids[i], kReservedPieces)
          << word << " -> " << as_json(pieces) << ": letters seen in training need no byte pieces";
    }
    EXPECT_EQ(pieces.front().rfind(kWordMark, 0), 0u) << word << " -> " << as_json(pieces);
  }
}

TEST(Tokenizer, NeverEmitsUnknown) {
  const Tokenizer& tok = fixture_tokenizer();
  std::mt19937 rng(99);
  std::vector<std::string> texts = {"日本語のメール",
                                    "שלום",
                                    "مرحبا",
                                    "🦄🧁🫠",
                                    "ሰላም",
                                    "\xF0\x9D\x90\x80",
                                    "\xEE\x80\x80 private use",
                                    "\xF3\xA0\x81\xA7 tag",
                                    "[PAD] [UNK] <0x41> \xE2\x96\x81"};
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (auto& ch : s) ch = static_cast<char>(rng());
    texts.push_back(s);
  }
  for (const auto& t : texts) {
    for (const int32_t id : tok.encode(t)) {
      ASSERT_NE(id, kUnkId) << "text " << json(normalize(t)).dump();
      ASSERT_NE(id, kPadId) << "text " << json(normalize(t)).dump();
      ASSERT_LT(id, tok.vocab_size());
    }
  }
}

TEST(Tokenizer, EmptyAndWhiteSpaceOnlyTextGiveNothing) {
  const Tokenizer& tok = fixture_tokenizer();
  for (const std::string& t : {std::string(), std::string(" "), std::string("\t\r\n  \r\n"),
                               std::string("\xC2\xA0\xE2\x80\x83\xE3\x80\x80"),
                               std::string("\0\0\0", 3), std::string("\xE2\x80\x8B\xEF\xBB\xBF")}) {
    EXPECT_TRUE(tok.encode(t).empty()) << json(t).dump(-1, ' ', true);
    EXPECT_TRUE(tok.encode_pieces(t).empty()) << json(t).dump(-1, ' ', true);
    EXPECT_EQ(Tokenizer::preprocess(t), "");
  }
}

TEST(Tokenizer, PreprocessJoinsPretokensWithSingleSpaces) {
  EXPECT_EQ(Tokenizer::preprocess("Refund  ₹850.00, please!\r\n"), "refund ₹ 850 . 00 , please !");
  EXPECT_EQ(Tokenizer::preprocess("केक👍🏽"), "केक 👍🏽");
}

TEST(Tokenizer, LongEmailEncodesLikeItsWords) {
  const Tokenizer& tok = fixture_tokenizer();
  const auto corpus = load_corpus();
  std::string email;
  for (std::size_t i = 0; email.size() < 100 * 1024; ++i) {
    email += corpus[i % corpus.size()] + (i % 3 ? " " : "\r\n");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto ids = tok.encode(email);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("encode_100kb_ms", std::to_string(ms));
  // Recorded, not asserted: speed is measured in bench/, never timed in tests.

  // Pieces never cross a space, so the long text must encode exactly like its words one by one.
  const std::string text = normalize(email);
  std::vector<int32_t> word_by_word;
  for (const auto word : pretokenize(text)) {
    const auto part = tok.encode(std::string(word));
    word_by_word.insert(word_by_word.end(), part.begin(), part.end());
  }
  ASSERT_EQ(ids.size(), word_by_word.size());
  EXPECT_TRUE(ids == word_by_word) << "encoding the whole email differs from word by word";
}

// encode(text, enough) reads only the first enough + 1 words. Since each word is at least one id,
// that must be the whole encoding when it has at most `enough` ids, and otherwise a prefix of it
// longer than `enough`: a reader of `enough` ids gets the same ids and knows the text was cut.
// Checked on the corpus, the golden cases (invalid UTF-8, scripts, emoji, bytes outside the
// vocabulary), random bytes and a long email, with the whole model and with a cut-down one.
TEST(Tokenizer, EncodingEnoughIdsIsAPrefixOfTheWholeEncoding) {
  const Tokenizer& tok = fixture_tokenizer();
  std::vector<std::string> texts = corpus_and_cases();
  std::mt19937 rng(11);
  for (int i = 0; i < 100; ++i) {
    std::string text(1 + rng() % 200, ' ');
    for (char& ch : text) ch = static_cast<char>(rng());
    texts.push_back(text);
  }
  std::string email;
  for (std::size_t i = 0; email.size() < 20 * 1024; ++i) email += texts[i % texts.size()] + "\n";
  texts.push_back(email);
  for (const std::string& text : texts) {
    const std::vector<int32_t> all = tok.encode(text);
    const size_t just_short = all.empty() ? 0 : all.size() - 1;
    for (const size_t enough :
         {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{32}, just_short, all.size()}) {
      const Tokenizer fresh = Tokenizer::from_trusted(tok.serialized(), tok.vocab_size(), {});
      for (const Tokenizer* t : {&tok, &fresh}) {
        const std::vector<int32_t> some = t->encode(text, enough);
        if (all.size() <= enough) {
          EXPECT_EQ(some, all) << "enough " << enough << ": " << text;
        } else {
          ASSERT_GT(some.size(), enough) << text;
          ASSERT_LE(some.size(), all.size()) << text;
          EXPECT_TRUE(std::equal(some.begin(), some.end(), all.begin()))
              << "enough " << enough << ": " << text;
        }
      }
    }
  }
}

// encode() answers repeated words from a per-thread cache; encode_pieces() always runs
// SentencePiece on whole chunks of text. Both must agree on every line, on the first pass (cache
// filling), on the second (cache hits), and with two vocabularies used in turn on one thread.
TEST(Tokenizer, WordCacheGivesWhatWholeTextEncodingGives) {
  const Tokenizer& tok = fixture_tokenizer();
  const auto corpus = load_corpus();
  const Tokenizer small = Tokenizer::train(corpus, 400);
  const auto as_ids = [](const Tokenizer& t, const std::vector<std::string>& pieces) {
    std::vector<int32_t> ids;
    for (const auto& p : pieces) {
      ids.push_back(static_cast<int32_t>(std::find(t.vocab().begin(), t.vocab().end(), p) -
                                         t.vocab().begin()));
    }
    return ids;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& line : corpus) {
      for (const Tokenizer* t : {&tok, &small}) {
        ASSERT_EQ(t->encode(line), as_ids(*t, t->encode_pieces(line)))
            << "pass " << pass << ": " << line;
      }
    }
  }
}

TEST(Tokenizer, EncodeIsThreadSafe) {
  const Tokenizer& tok = fixture_tokenizer();
  const auto corpus = load_corpus();
  std::vector<std::vector<int32_t>> expected;
  for (const auto& line : corpus) expected.push_back(tok.encode(line));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (std::size_t i = 0; i < corpus.size(); ++i) {
          if (tok.encode(corpus[(i + t) % corpus.size()]) != expected[(i + t) % corpus.size()]) {
            ++mismatches[t];
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

// ---- training ---------------------------------------------------------------------------------

TEST(Tokenizer, TrainingIsDeterministic) {
  const auto corpus = load_corpus();
  const Tokenizer a = Tokenizer::train(corpus, fixture_vocab_size());
  const Tokenizer b = Tokenizer::train(corpus, fixture_vocab_size());
  EXPECT_EQ(a.vocab(), b.vocab());
  EXPECT_TRUE(a.serialized() == b.serialized())
      << "two trainings on the same texts gave different models (" << a.serialized().size()
      << " vs " << b.serialized().size() << " bytes)";
  EXPECT_TRUE(a.serialized() == fixture_tokenizer().serialized());
}

TEST(Tokenizer, TrainingAndLoadingAreSilent) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const Tokenizer tok = Tokenizer::train(load_corpus(), 400);
  const Tokenizer loaded = Tokenizer::from_serialized(std::string(tok.serialized()), "silent");
  (void)loaded.encode("refund my cake 😀");
  try {
    (void)Tokenizer::from_serialized("garbage", "silent");
  } catch (const ModelError&) {
  }
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "") << "stdout must stay clean";
  EXPECT_EQ(err, "") << "stderr must stay clean";
}

TEST(Tokenizer, SmallCorpusGivesFewerPiecesThanAsked) {
  const Tokenizer tok = Tokenizer::train({"refund my cake", "cancel my order"}, 5000);
  EXPECT_GT(tok.vocab_size(), kReservedPieces);
  EXPECT_LT(tok.vocab_size(), 5000);
  EXPECT_EQ(tok.encode_pieces("refund"), std::vector<std::string>{kWordMark + "refund"});
}

TEST(Tokenizer, VocabSizeTooSmallIsAUsageError) {
  const auto corpus = load_corpus();
  for (const int size : {-1, 0, 2, 100, kReservedPieces}) {
    try {
      (void)Tokenizer::train(corpus, size);
      ADD_FAILURE() << "vocab_size " << size << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("vocab_size " + std::to_string(size) + " is too small"),
                std::string::npos)
          << e.what();
    }
  }
  // Room for the reserved pieces but not for the corpus's characters.
  try {
    (void)Tokenizer::train(corpus, kReservedPieces + 5);
    ADD_FAILURE() << "vocab_size " << kReservedPieces + 5 << " was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("too small for this corpus"), std::string::npos)
        << e.what();
  }
}

TEST(Tokenizer, TrainsOnVeryLongTexts) {
  // One 300 KB email: it is fed to SentencePiece in chunks, not dropped as an over-long line.
  std::string email;
  while (email.size() < 300 * 1024) email += "please refund my cake order quickly\n";
  email += std::string(100 * 1024, 'x');  // and one 100 KB "word" with no space to cut at
  const Tokenizer tok = Tokenizer::train({email}, 1000);
  EXPECT_EQ(tok.encode_pieces("refund quickly"),
            (std::vector<std::string>{kWordMark + "refund", kWordMark + "quickly"}))
      << "the long text was not learned from";
}

TEST(Tokenizer, NoTextIsAUsageError) {
  EXPECT_THROW((void)Tokenizer::train({}, 500), UsageError);
  EXPECT_THROW((void)Tokenizer::train({"", "  \r\n", std::string("\0", 1)}, 500), UsageError);
}

// ---- serialization and loading ----------------------------------------------------------------

TEST(Tokenizer, SerializedRoundTripThroughBase64) {
  const Tokenizer& tok = fixture_tokenizer();
  const std::string stored = base64_encode(tok.serialized());
  const Tokenizer loaded = Tokenizer::from_serialized(base64_decode(stored), "round trip");
  EXPECT_EQ(loaded.vocab(), tok.vocab());
  EXPECT_TRUE(loaded.serialized() == tok.serialized());
  const json doc = load_cases_doc();
  for (const auto& c : doc.at("cases")) {
    const std::string input = case_input(c);
    EXPECT_EQ(loaded.encode(input), tok.encode(input)) << c.at("name");
  }
  for (const auto& line : load_corpus()) EXPECT_EQ(loaded.encode(line), tok.encode(line)) << line;
}

TEST(Tokenizer, MovedFromAndMovedToWork) {
  Tokenizer a = Tokenizer::from_serialized(std::string(fixture_tokenizer().serialized()), "move");
  Tokenizer b = std::move(a);
  EXPECT_EQ(b.encode("refund"), fixture_tokenizer().encode("refund"));
  a = std::move(b);
  EXPECT_EQ(a.encode("refund"), fixture_tokenizer().encode("refund"));
}

// ---- known words ---------------------------------------------------------------------------

TEST(KnownWords, GivesTheIdsOfEachWordAndMissesOthers) {
  const std::string bytes = KnownWords::build(
      {{"refund", {300, 301}}, {"cake", {400}}, {"\xE2\x82\xB9", {500, 2, 3}}, {"a", {}}});
  const KnownWords words = KnownWords::view(bytes, 1000, "t.bin");
  EXPECT_EQ(words.size(), 4u);
  std::vector<int32_t> ids = {7};
  EXPECT_TRUE(words.append_ids("refund", ids));
  EXPECT_TRUE(words.append_ids("\xE2\x82\xB9", ids));
  EXPECT_TRUE(words.append_ids("cake", ids));
  EXPECT_EQ(ids, (std::vector<int32_t>{7, 300, 301, 500, 2, 3, 400}));
  for (const char* other : {"", "refunds", "refun", "Cake", "b", "zzz", "\x01"}) {
    EXPECT_FALSE(words.append_ids(other, ids)) << other;
  }
  EXPECT_EQ(ids.size(), 7u) << "a miss appends nothing";
  EXPECT_FALSE(KnownWords().append_ids("cake", ids)) << "the empty table knows nothing";
}

// A damaged table is refused when its sizes do not add up; damage inside an entry only makes
// that word a miss (it then goes to SentencePiece), never a wrong id or a read out of bounds.
TEST(KnownWords, DamageIsRefusedOrMisses) {
  const std::string good = KnownWords::build({{"cake", {400}}, {"fee", {401, 402}}});
  for (const std::string& bad : {std::string(), good.substr(0, 3), good.substr(0, good.size() - 1),
                                 good + "x", std::string("\xff\xff\xff\xff") + good.substr(4)}) {
    EXPECT_THROW(KnownWords::view(bad, 1000, "t.bin"), ModelError) << bad.size() << " bytes";
  }
  std::vector<int32_t> ids;
  // An id not below the vocabulary size.
  EXPECT_FALSE(KnownWords::view(good, 402, "t.bin").append_ids("fee", ids));
  EXPECT_TRUE(ids.empty());
  EXPECT_TRUE(KnownWords::view(good, 402, "t.bin").append_ids("cake", ids));
  // Word offsets running backwards (word_end[0] set past word_end[1]).
  std::string swapped = good;
  swapped[4] = 9;
  ids.clear();
  EXPECT_FALSE(KnownWords::view(swapped, 1000, "t.bin").append_ids("cake", ids));
  EXPECT_FALSE(KnownWords::view(swapped, 1000, "t.bin").append_ids("fee", ids));
  EXPECT_TRUE(ids.empty());
}

// A tokenizer loaded on trust answers from its known words without parsing its model, encodes
// other words with models cut down to their pieces until those have cost as much as the whole
// model, and then parses it (once, from any thread): the ids are always what SentencePiece gives.
TEST(Tokenizer, TrustedTokenizerWithKnownWordsEncodesLikeTheModel) {
  const Tokenizer& tok = fixture_tokenizer();
  const std::vector<std::string> corpus = load_corpus();
  const std::string table = tok.known_words_for({corpus.begin(), corpus.begin() + 20});
  const KnownWords words = KnownWords::view(table, tok.vocab_size(), "t.bin");
  ASSERT_GT(words.size(), 20u);
  const Tokenizer trusted = Tokenizer::from_trusted(tok.serialized(), tok.vocab_size(), words);
  EXPECT_FALSE(trusted.parsed());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(trusted.encode(corpus[i]), tok.encode(corpus[i]));
  EXPECT_FALSE(trusted.parsed()) << "every word was known: no need to parse";
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 20 + t; i < corpus.size(); i += 2) {
        EXPECT_EQ(trusted.encode(corpus[i]), tok.encode(corpus[i])) << corpus[i];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(trusted.parsed());
  EXPECT_EQ(trusted.vocab(), tok.vocab());
}

// Replaces the first occurrence of `from` by `to` (same length keeps the protobuf well-formed).
std::string patched(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// BPE builds a word from pieces that are substrings of "▁" + word, so a model cut down to those
// (and the special and byte pieces) encodes every text as the whole model does: the corpus, the
// golden cases (invalid UTF-8, scripts, digits, emoji, bytes outside the vocabulary), and words
// made of random bytes. A fresh tokenizer on trust does that without parsing the whole model.
TEST(Tokenizer, CutDownModelEncodesLikeTheWholeModel) {
  const Tokenizer& tok = fixture_tokenizer();
  std::vector<std::string> texts = corpus_and_cases();
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) {
    std::string word(1 + rng() % 12, ' ');
    for (char& ch : word) ch = static_cast<char>(0x21 + rng() % 0xDF);
    texts.push_back("x " + word);
  }
  int unparsed = 0;
  for (const std::string& text : texts) {
    const Tokenizer fresh = Tokenizer::from_trusted(tok.serialized(), tok.vocab_size(), {});
    ASSERT_EQ(fresh.encode(text), tok.encode(text)) << text;
    unparsed += !fresh.parsed();
  }
  // Only a word longer than the word cache takes (32 bytes) needs the whole model.
  EXPECT_GT(unparsed, static_cast<int>(texts.size()) * 9 / 10);
  const Tokenizer fresh = Tokenizer::from_trusted(tok.serialized(), tok.vocab_size(), {});
  EXPECT_EQ(fresh.encode("zebra quokka 4521"), tok.encode("zebra quokka 4521"));
  EXPECT_FALSE(fresh.parsed());
}

TEST(Tokenizer, CutDownModelKeepsTheSpecialPiecesAndOnlyTheWordsPieces) {
  const Tokenizer& tok = fixture_tokenizer();
  const auto subset = piece_subset(tok.serialized(), {"cake", "fee"});
  ASSERT_TRUE(subset);
  ASSERT_GT(subset->ids.size(), static_cast<size_t>(kReservedPieces));
  for (int id = 0; id < kReservedPieces; ++id) EXPECT_EQ(subset->ids[id], id);
  EXPECT_TRUE(std::is_sorted(subset->ids.begin(), subset->ids.end()));
  const std::string mark = "\xE2\x96\x81";  // U+2581
  const std::string marked = mark + "cake " + mark + "fee";
  for (size_t i = kReservedPieces; i < subset->ids.size(); ++i) {
    const std::string& piece = tok.vocab()[subset->ids[i]];
    EXPECT_NE(marked.find(piece), std::string::npos) << piece;
  }
  // Cut short, the bytes are not a model.
  EXPECT_FALSE(piece_subset(tok.serialized().substr(0, tok.serialized().size() - 3), {"cake"}));
}

TEST(Tokenizer, RejectsBrokenModels) {
  const std::string good(fixture_tokenizer().serialized());
  const struct {
    const char* name;
    std::string bytes;
    const char* expected;  // a fragment of the message
  } cases[] = {
      {"empty", "", "empty"},
      {"not a protobuf", "this is not a model", "not a valid SentencePiece model"},
      {"random bytes", std::string("\x08\x96\x01\xff\xff\xff\x0a", 7), "not a valid"},
      {"truncated to half", good.substr(0, good.size() / 2), "not a valid"},
      {"truncated by one byte", good.substr(0, good.size() - 1), "tokenizer: "},
      {"piece 0 renamed", patched(good, "[PAD]", "[PAX]"), "piece 0 is \"[PAX]\""},
      {"piece 1 renamed", patched(good, "[UNK]", "[UNX]"), "piece 1 is \"[UNX]\""},
      {"byte piece renamed", patched(good, "<0x41>", "<0y41>"), "byte"},
  };
  for (const auto& c : cases) {
    try {
      (void)Tokenizer::from_serialized(c.bytes, "model.json: /tokenizer/model");
      ADD_FAILURE() << "case '" << c.name << "' was accepted";
    } catch (const ModelError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("model.json: /tokenizer/model: tokenizer: ", 0), 0u)
          << "case '" << c.name << "': message does not start with where: " << what;
      EXPECT_NE(what.find(c.expected), std::string::npos)
          << "case '" << c.name << "': expected the message to mention '" << c.expected
          << "', got: " << what;
    }
  }
}

TEST(Tokenizer, LoadingNeverCrashesOnDamagedModels) {
  const std::string good(fixture_tokenizer().serialized());
  std::mt19937 rng(2024);
  int accepted = 0;
  for (int i = 0; i < 500; ++i) {
    std::string bytes = good;
    for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (i % 2) bytes.resize(rng() % bytes.size());
    try {
      const Tokenizer t = Tokenizer::from_serialized(bytes, "damaged");
      ++accepted;  // some damage (a piece's score, say) leaves a usable model
      for (const int32_t id : t.encode("refund my cake 😀 केक")) ASSERT_LT(id, t.vocab_size());
    } catch (const ModelError&) {
    }
  }
  RecordProperty("damaged_models_accepted", accepted);
}

// ---- base64 -----------------------------------------------------------------------------------

TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      {std::string("\0\xff\xfe", 3), "AP/+"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(plain), encoded) << "encode " << json(plain).dump(-1, ' ', true);
    EXPECT_EQ(base64_decode(encoded), plain) << "decode " << encoded;
  }
}

TEST(Base64, RoundTripsAnyBytes) {
  std::mt19937 rng(5);
  for (std::size_t len = 0; len < 300; ++len) {
    std::string bytes(len, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    const std::string encoded = base64_encode(bytes);
    ASSERT_EQ(encoded.size() % 4, 0u);
    ASSERT_TRUE(base64_decode(encoded) == bytes) << "length " << len;
  }
}

TEST(Base64, RejectsBadInputWithPosition) {
  const struct {
    std::string text;
    const char* expected;  // a fragment of the message
  } cases[] = {
      {"Zg=", "position 3: length 3 is not a multiple of 4"},
      {"Zm9", "position 3: length 3"},
      {"Zm9v!A==", "position 4: unexpected character '!'"},
      {"Zm 9", "position 2: unexpected byte 0x20"},
      {"Zm9v\nAAA", "position 4: unexpected byte 0x0A"},
      {"Zm9v\xC3\xA9"
       "AA",
       "position 4: unexpected byte 0xC3"},
      {"=Zm9", "position 0: padding '=' before the end"},
      {"Zg==Zm9v", "position 2: padding '=' before the end"},
      {"Z===", "position 1: padding '=' before the end"},
      {"Zm=v", "position 2: padding '=' before the end"},
      {"Zh==", "position 1: non-zero bits before the padding"},
      {"Zm9=", "position 2: non-zero bits before the padding"},
  };
  for (const auto& c : cases) {
    try {
      (void)base64_decode(c.text, "model.json: /tokenizer/model");
      ADD_FAILURE() << json(c.text).dump() << " was accepted";
    } catch (const ModelError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("model.json: /tokenizer/model: invalid base64 at ", 0), 0u) << what;
      EXPECT_NE(what.find(c.expected), std::string::npos)
          << "input " << json(c.text).dump(-1, ' ', true) << ": expected '" << c.expected
          << "' in the message, got: " << what;
    }
  }
}

}  // namespace
}  // namespace router
