// Tokenizer: our normalisation and pre-tokenisation in front of a SentencePiece BPE model that
// is trained and loaded entirely in memory. SentencePiece is told to do no normalisation of its
// own (identity rule, no whitespace cleanup), so the only text rules are ours, and to fall back
// to byte pieces for characters outside the vocabulary, so no input becomes [UNK].
#include "text/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "base/errors.h"
#include "base/shared_library.h"
#include "text/normalize.h"
#include "text/piece_subset.h"
#include "text/pretokenize.h"

namespace router {
namespace {

// Training texts longer than this are fed to SentencePiece in pieces cut at spaces. Word
// frequencies, all BPE counts, are unaffected; SentencePiece would otherwise drop long lines.
// (Pre-tokens are at most kMaxTokenCodePoints long, so there is always a space to cut at.)
constexpr std::size_t kMaxChunkBytes = 1 << 16;
constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word mark
constexpr unsigned kTrainerSeed = 20240601;  // BPE draws nothing at random; fixed regardless

// Feeds already preprocessed texts to the trainer, in their given order.
class ChunkIterator : public sentencepiece::SentenceIterator {
 public:
  explicit ChunkIterator(const std::vector<std::string>& texts) {
    for (const auto& t : texts) {
      std::string_view rest = t;
      while (rest.size() > kMaxChunkBytes) {
        std::size_t cut = rest.rfind(' ', kMaxChunkBytes);
        if (cut == std::string_view::npos || cut == 0) {
          // Cannot happen (see above); should it, cut at a code point boundary.
          cut = kMaxChunkBytes;
          while (cut > 1 && (static_cast<unsigned char>(rest[cut]) & 0xC0) == 0x80) --cut;
        }
        chunks_.emplace_back(rest.substr(0, cut));
        rest.remove_prefix(cut);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      }
      if (!rest.empty()) chunks_.emplace_back(rest);
    }
  }
  bool done() const override { return index_ >= chunks_.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return chunks_[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  std::vector<std::string> chunks_;
  std::size_t index_ = 0;
};

std::unordered_map<std::string, std::string> trainer_options(int vocab_size,
                                                             std::size_t max_sentence_bytes) {
  return {
      {"model_type", "bpe"},
      {"vocab_size", std::to_string(vocab_size)},
      {"hard_vocab_limit", "false"},  // a small corpus yields fewer pieces instead of failing
      // We normalise; SentencePiece must leave the text as it is.
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", "true"},  // the first word gets the same "▁" as every other word
      {"split_by_whitespace", "true"},
      {"split_by_unicode_script", "true"},
      {"split_by_number", "true"},
      {"split_digits", "false"},
      {"treat_whitespace_as_suffix", "false"},
      {"allow_whitespace_only_pieces", "false"},
      {"max_sentencepiece_length", "16"},
      {"max_sentence_length", std::to_string(max_sentence_bytes)},
      // Special pieces: [PAD] = 0, [UNK] = 1, no BOS/EOS; bytes right after them.
      {"pad_id", "0"},
      {"pad_piece", "[PAD]"},
      {"unk_id", "1"},
      {"unk_piece", "[UNK]"},
      {"bos_id", "-1"},
      {"eos_id", "-1"},
      {"byte_fallback", "true"},
      // Every character seen in training gets a piece (SentencePiece's default 0.9995 would
      // push signs like "₹" that make up less than 0.05% of mail into bytes); byte pieces are
      // for characters never seen.
      {"character_coverage", "1.0"},
      // Determinism: every sentence, in order, one thread, no self-test sampling.
      {"input_sentence_size", "0"},
      {"shuffle_input_sentence", "false"},
      {"num_threads", "1"},
      {"self_test_sample_size", "0"},
      {"train_extremely_large_corpus", "false"},
      {"minloglevel", "3"},  // SentencePiece logs to stderr; we report through exceptions
  };
}

// Calls f on consecutive pieces of `text` of about kEncodeChunkBytes, cut at spaces (which are
// dropped). Pieces never cross a space and every word carries its own "▁", so the result equals
// encoding the whole text at once; SentencePiece is about twice as fast on short inputs.
constexpr std::size_t kEncodeChunkBytes = 1024;
template <typename F>
void for_each_chunk(std::string_view text, F&& f) {
  while (!text.empty()) {
    std::size_t cut = text.size();
    if (cut > kEncodeChunkBytes) {
      cut = text.rfind(' ', kEncodeChunkBytes);
      if (cut == std::string_view::npos || cut == 0) cut = text.find(' ', kEncodeChunkBytes);
      if (cut == std::string_view::npos) cut = text.size();
    }
    f(text.substr(0, cut));
    text.remove_prefix(cut);
    if (!text.empty()) text.remove_prefix(1);  // the space at the cut
  }
}

// SentencePiece's one foreseeable failure reads "Vocabulary size is smaller than
// required_chars. 290 vs 310. ..."; we turn it into advice, and pass anything else on verbatim.
std::string explain_training_failure(const std::string& message, int vocab_size) {
  const std::string head = "tokenizer: vocab_size " + std::to_string(vocab_size);
  const std::size_t at = message.find("smaller than required_chars");
  const std::size_t vs = message.find(" vs ", at == std::string::npos ? 0 : at);
  if (at != std::string::npos && vs != std::string::npos) {
    const std::string needed = std::to_string(std::atoi(message.c_str() + vs + 4));
    return head + " is too small for this corpus: [PAD], [UNK], the 256 byte pieces and the " +
           "corpus's characters need " + needed + " pieces; use at least " + needed +
           " (more leaves room for subword pieces)";
  }
  return head + ": SentencePiece training failed: " + message;
}

// SentencePiece's trainer keeps global state (log level, random seed); one training at a time.
std::mutex& trainer_mutex() {
  static std::mutex m;
  return m;
}

// The trainer library is opened only when a vocabulary is learned: linked, it would be loaded
// and its symbols resolved at the start of every command (about 1 ms of `router classify`).
// The overload taking the option map; the name is its Itanium C++ ABI mangling.
using TrainFn = decltype(static_cast<sentencepiece::util::Status (*)(
                             const std::unordered_map<std::string, std::string>&,
                             sentencepiece::SentenceIterator*, std::string*)>(
    &sentencepiece::SentencePieceTrainer::Train));
constexpr const char* kTrainSymbol =
    "_ZN13sentencepiece20SentencePieceTrainer5TrainERKSt13unordered_mapINSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEES7_St4hashIS7_ESt8equal_toIS7_ESaISt4pairIKS7_S7_EEEPNS_"
    "16SentenceIteratorEPS7_";

// A failure to open it goes to the caller; the next call tries again.
TrainFn trainer() {
  static const TrainFn train = reinterpret_cast<TrainFn>(library_symbol(
      "libsentencepiece_train.so.0", kTrainSymbol,
      "learning a vocabulary needs SentencePiece's trainer (Debian package libsentencepiece0)"));
  return train;
}

}  // namespace

namespace {

// Each thread keeps the ids of the words it has encoded: mail repeats its words, and a hash
// lookup is several times cheaper than SentencePiece's BPE on the word. A word's pieces do not
// depend on its neighbours (see for_each_chunk), so the result is exactly what encoding the whole
// text gives. Bounded: only words up to kMaxCachedBytes are kept, and the cache is emptied when
// it reaches kMaxWords (at most a few MB per thread).
constexpr std::size_t kMaxWords = 1 << 16;
constexpr std::size_t kMaxCachedBytes = 32;

struct WordHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct WordCache {
  uint64_t key = 0;  // the Tokenizer the entries belong to
  std::unordered_map<std::string, std::vector<int32_t>, WordHash, std::equal_to<>> ids;
};

std::atomic<uint64_t> next_cache_key{1};

// Parses a serialized model; throws ModelError with SentencePiece's reason.
std::unique_ptr<sentencepiece::SentencePieceProcessor> parse_model(std::string_view serialized) {
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = sp->LoadFromSerializedProto(serialized);
  if (!status.ok()) {
    throw ModelError("not a valid SentencePiece model (" + status.ToString() + ")");
  }
  return sp;
}

// Encoding a parsed model fails only on a bug (in SentencePiece or here): not an input error.
void check_encoded(const sentencepiece::util::Status& status) {
  if (!status.ok()) throw Error(ExitCode::kFailure, "tokenizer: " + status.ToString());
}

}  // namespace

Tokenizer::Tokenizer()
    : processor_(std::make_unique<Processor>()),
      cache_key_(next_cache_key.fetch_add(1)),
      pieces_(std::make_unique<Pieces>()) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

std::string Tokenizer::preprocess(std::string_view raw) {
  const std::string normalized = normalize(raw);
  std::string out;
  out.reserve(normalized.size() + normalized.size() / 4);
  for (const std::string_view token : pretokenize(normalized)) {
    if (!out.empty()) out.push_back(' ');
    out.append(token);
  }
  return out;
}

Tokenizer Tokenizer::train(const std::vector<std::string>& texts, int vocab_size) {
  if (vocab_size <= kReservedPieces) {
    throw UsageError("tokenizer: vocab_size " + std::to_string(vocab_size) +
                     " is too small: the vocabulary holds [PAD], [UNK] and 256 byte pieces, so "
                     "it needs more than " +
                     std::to_string(kReservedPieces) + " pieces");
  }
  std::vector<std::string> prepared;
  prepared.reserve(texts.size());
  for (const auto& t : texts) {
    std::string p = preprocess(t);
    if (!p.empty()) prepared.push_back(std::move(p));
  }
  if (prepared.empty()) {
    throw UsageError("tokenizer: cannot train on " + std::to_string(texts.size()) +
                     " texts: none of them has a token");
  }
  ChunkIterator sentences(prepared);
  std::string serialized;
  sentencepiece::util::Status status;
  {
    std::lock_guard<std::mutex> lock(trainer_mutex());
    sentencepiece::SetRandomGeneratorSeed(kTrainerSeed);
    status = trainer()(trainer_options(vocab_size, 2 * kMaxChunkBytes), &sentences, &serialized);
  }
  if (!status.ok()) throw UsageError(explain_training_failure(status.ToString(), vocab_size));
  return from_serialized(std::move(serialized), "trained tokenizer");
}

const sentencepiece::SentencePieceProcessor& Tokenizer::sp() const {
  std::call_once(processor_->once, [&] {
    processor_->sp = parse_model(serialized_);
    processor_->parsed.store(true, std::memory_order_release);
  });
  return *processor_->sp;
}

Tokenizer Tokenizer::from_trusted(std::string_view serialized, int vocab_size, KnownWords words) {
  Tokenizer tok;
  tok.serialized_ = serialized;
  tok.size_ = vocab_size;
  tok.words_ = words;
  return tok;
}

Tokenizer Tokenizer::from_serialized(std::string serialized, const std::string& where) {
  const std::string prefix = where + ": tokenizer: ";
  if (serialized.empty()) throw ModelError(prefix + "the serialized model is empty");
  Tokenizer tok;
  tok.owned_ = std::make_unique<const std::string>(std::move(serialized));
  tok.serialized_ = *tok.owned_;
  const sentencepiece::SentencePieceProcessor* sp = nullptr;
  try {
    sp = &tok.sp();
  } catch (const ModelError& e) {
    throw ModelError(prefix + e.what());
  }
  const int n = sp->GetPieceSize();
  if (n <= kReservedPieces) {
    throw ModelError(prefix + "only " + std::to_string(n) + " pieces; expected more than " +
                     std::to_string(kReservedPieces));
  }
  if (sp->IdToPiece(kPadId) != "[PAD]" || !sp->IsControl(kPadId)) {
    throw ModelError(prefix + "piece 0 is \"" + sp->IdToPiece(kPadId) +
                     "\"; expected the control piece \"[PAD]\"");
  }
  if (sp->IdToPiece(kUnkId) != "[UNK]" || sp->unk_id() != kUnkId) {
    throw ModelError(prefix + "piece 1 is \"" + sp->IdToPiece(kUnkId) +
                     "\"; expected the unknown piece \"[UNK]\"");
  }
  // Byte fallback: <0x00>..<0xFF> right after the two special pieces. Only these ids are
  // checked, not the whole vocabulary: each query costs a status check, and start-up pays it.
  for (int b = 0; b < 256; ++b) {
    const int id = 2 + b;
    if (!sp->IsByte(id)) {
      throw ModelError(prefix + "piece " + std::to_string(id) +
                       " is not a byte piece; expected <0x00>..<0xFF> at ids 2..257 "
                       "(byte fallback)");
    }
  }
  // The model must leave text as it is (identity normalisation: NFKC would turn U+FB01 into
  // "fi") and mark each word with "▁", as train() sets it up; otherwise it would not split text
  // the way it did in training.
  std::vector<std::string> probe;
  std::string decoded;
  const std::string probe_text = "\xEF\xAC\x81 a";  // U+FB01 LATIN SMALL LIGATURE FI, space, a
  if (!sp->Encode(probe_text, &probe).ok() || !sp->Decode(probe, &decoded).ok() || probe.empty() ||
      probe.front().rfind(kWordMark, 0) != 0 || decoded != probe_text) {
    throw ModelError(prefix + "the model does not use identity normalisation with a \"" +
                     std::string(kWordMark) + "\" word prefix");
  }
  tok.size_ = n;
  return tok;
}

std::vector<int32_t> Tokenizer::word_ids(std::string_view word) const {
  std::vector<int32_t> ids;
  if (words_.append_ids(word, ids)) return ids;
  std::vector<int> pieces;
  check_encoded(sp().Encode(word, &pieces));
  return {pieces.begin(), pieces.end()};
}

template <typename Cache>
void Tokenizer::encode_with_subset(const std::vector<std::string_view>& words, Cache& cache) const {
  if (processor_->subset_pieces.load(std::memory_order_relaxed) >= size_) return;
  std::vector<std::string_view> unknown;
  std::vector<int32_t> ids;
  for (const std::string_view word : words) {
    if (word.size() <= kMaxCachedBytes && cache.ids.count(word)) continue;
    ids.clear();
    if (words_.append_ids(word, ids)) continue;
    // An unknown word too long for the cache goes to sp() in any case, and so would one with a
    // byte that SentencePiece reads as white space (pre-tokens have none).
    if (word.size() > kMaxCachedBytes) return;
    for (const char c : word) {
      if (static_cast<unsigned char>(c) <= ' ') return;
    }
    if (std::find(unknown.begin(), unknown.end(), word) == unknown.end()) unknown.push_back(word);
  }
  if (unknown.empty()) return;
  const std::optional<PieceSubset> subset = piece_subset(serialized_, unknown);
  if (!subset) return;
  const auto n = static_cast<int64_t>(subset->ids.size());
  if (processor_->subset_pieces.fetch_add(n, std::memory_order_relaxed) + n > size_) return;
  sentencepiece::SentencePieceProcessor sp;
  if (!sp.LoadFromSerializedProto(subset->serialized).ok()) return;
  if (cache.ids.size() + unknown.size() > kMaxWords) cache.ids.clear();
  std::vector<int> pieces;
  for (const std::string_view word : unknown) {
    if (!sp.Encode(word, &pieces).ok()) return;
    ids.clear();
    for (const int p : pieces) {
      if (p < 0 || static_cast<size_t>(p) >= subset->ids.size()) return;
      ids.push_back(subset->ids[p]);
    }
    cache.ids.emplace(std::string(word), ids);
  }
}

std::vector<int32_t> Tokenizer::encode(std::string_view raw, size_t enough) const {
  thread_local WordCache cache;
  if (cache.key != cache_key_) {
    cache.ids.clear();
    cache.key = cache_key_;
  }
  std::vector<int32_t> ids;
  const std::string normalized = normalize(raw);
  const std::vector<std::string_view> words = pretokenize(normalized, enough + 1);
  if (!parsed()) encode_with_subset(words, cache);
  for (const std::string_view word : words) {
    if (word.size() > kMaxCachedBytes) {
      const std::vector<int32_t> part = word_ids(word);
      ids.insert(ids.end(), part.begin(), part.end());
      continue;
    }
    // The cache comes before the known words: a hash lookup is cheaper than their binary search.
    auto it = cache.ids.find(word);
    if (it == cache.ids.end()) {
      if (cache.ids.size() >= kMaxWords) cache.ids.clear();
      it = cache.ids.emplace(std::string(word), word_ids(word)).first;
    }
    ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  return ids;
}

std::vector<std::vector<int32_t>> Tokenizer::encode_sampled(
    const std::vector<std::string_view>& texts, double dropout, uint32_t seed) const {
  std::vector<std::vector<int32_t>> out(texts.size());
  std::exception_ptr error;
  const auto& processor = sp();
  // The global seed is read when the new thread first samples; training sets it too.
  std::lock_guard<std::mutex> lock(trainer_mutex());
  // SentencePiece reads ~0u as "no seed" (it would draw one from std::random_device).
  sentencepiece::SetRandomGeneratorSeed(seed == ~0u ? 0u : seed);
  std::thread sampler([&] {
    try {
      std::vector<int> pieces;
      for (std::size_t i = 0; i < texts.size(); ++i) {
        const std::string normalized = normalize(texts[i]);
        for (const std::string_view word : pretokenize(normalized)) {
          check_encoded(processor.SampleEncode(word, -1, static_cast<float>(dropout), &pieces));
          out[i].insert(out[i].end(), pieces.begin(), pieces.end());
        }
      }
    } catch (...) {
      error = std::current_exception();
    }
  });
  sampler.join();
  if (error) std::rethrow_exception(error);
  return out;
}

std::vector<std::string> Tokenizer::encode_pieces(std::string_view raw) const {
  std::vector<std::string> pieces;
  std::vector<std::string> part;
  for_each_chunk(preprocess(raw), [&](std::string_view chunk) {
    check_encoded(sp().Encode(chunk, &part));
    for (auto& piece : part) pieces.push_back(std::move(piece));
  });
  return pieces;
}

int Tokenizer::vocab_size() const { return size_; }

std::string Tokenizer::known_words_for(const std::vector<std::string>& texts) const {
  std::map<std::string, std::vector<int32_t>, std::less<>> words;
  for (const auto& text : texts) {
    const std::string normalized = normalize(text);
    for (const std::string_view word : pretokenize(normalized)) {
      if (words.find(word) == words.end()) words.emplace(std::string(word), word_ids(word));
    }
  }
  return KnownWords::build({words.begin(), words.end()});
}

const std::vector<std::string>& Tokenizer::vocab() const {
  std::call_once(pieces_->once, [&] {
    pieces_->list.reserve(size_);
    const auto& sp = this->sp();
    for (int id = 0; id < size_; ++id) pieces_->list.push_back(sp.IdToPiece(id));
  });
  return pieces_->list;
}

}  // namespace router
