// The text pipeline in one object: strict UTF-8 -> normalisation -> pre-tokenisation -> subword
// pieces (SentencePiece BPE). The vocabulary and merges live in the serialized SentencePiece model,
// which the model file stores; encode() is const and safe to call from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "text/known_words.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace router {

inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kUnkId = 1;
// [PAD], [UNK] and the 256 byte-fallback pieces <0x00>..<0xFF>, which every vocabulary holds
// (ids 2..257) so that no character is ever [UNK]. train() needs vocab_size above this.
inline constexpr int kReservedPieces = 2 + 256;

class Tokenizer {
 public:
  // Learns a BPE vocabulary of `vocab_size` pieces (including [PAD] and [UNK]) from `texts`,
  // which are normalised and pre-tokenised first. Deterministic: same texts, same model.
  // A small corpus may give fewer pieces than asked for (never more). Throws UsageError when
  // vocab_size cannot hold the reserved pieces plus the corpus's characters, or when the texts
  // hold no token at all.
  static Tokenizer train(const std::vector<std::string>& texts, int vocab_size);

  // Loads a serialized SentencePiece model. Throws ModelError (naming `where`) if it is invalid
  // or its special pieces are not [PAD] = 0 and [UNK] = 1.
  static Tokenizer from_serialized(std::string serialized, const std::string& where);

  // The built-in model's tokenizer, checked when it was packed: `serialized` (which must outlive
  // the tokenizer) is not parsed at start-up, where parsing costs about a millisecond. Words in
  // `words` need no model; other words are encoded with models cut down to their pieces, and the
  // whole model is parsed once those have cost as much, or when pieces are asked for.
  static Tokenizer from_trusted(std::string_view serialized, int vocab_size, KnownWords words);

  // The table of known words for `texts`: each distinct word they hold, with its ids.
  std::string known_words_for(const std::vector<std::string>& texts) const;
  // From now on encode() takes the ids of the words in `words` from it (see known_words.h).
  // Not while another thread encodes.
  void set_known_words(KnownWords words) { words_ = words; }

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // Full pipeline: raw bytes (any, even invalid UTF-8) -> ids. Empty when the text has no tokens.
  // With `enough`, only the first `enough` + 1 words are encoded. Each word is at least one id, so
  // the result is the whole encoding or a prefix of it longer than `enough`: all that a reader of
  // `enough` ids needs, cut or not, and a huge text costs one pass to normalise, not more.
  std::vector<int32_t> encode(std::string_view raw,
                              size_t enough = std::numeric_limits<size_t>::max() - 1) const;
  // BPE-dropout (Provilkov et al., 2020), for training: each of `texts` encoded with every merge
  // skipped with probability `dropout`, so that a word shows up in several segmentations. The
  // same texts, dropout and seed give the same ids, whatever the process did before: SentencePiece
  // samples from a generator each thread seeds on its first draw, so the draws are made on a new
  // thread. Known words and the word cache are bypassed; dropout 0 gives encode()'s ids.
  std::vector<std::vector<int32_t>> encode_sampled(const std::vector<std::string_view>& texts,
                                                   double dropout, uint32_t seed) const;
  // The same, as piece strings (for explain and tests).
  std::vector<std::string> encode_pieces(std::string_view raw) const;

  // The text the subword model sees: normalize(raw), pre-tokenised, tokens joined by one space.
  static std::string preprocess(std::string_view raw);

  int vocab_size() const;
  // Piece by id; listed on first use (classifying needs only the ids).
  const std::vector<std::string>& vocab() const;
  std::string_view serialized() const { return serialized_; }
  // Whether the SentencePiece model has been parsed yet (see from_trusted).
  bool parsed() const { return processor_->parsed.load(std::memory_order_acquire); }

 private:
  Tokenizer();
  // The SentencePiece processor, parsed from serialized_ on first need (thread-safe).
  const sentencepiece::SentencePieceProcessor& sp() const;
  // A pre-token's ids: from the known words if it is one, else from SentencePiece.
  std::vector<int32_t> word_ids(std::string_view word) const;
  // Until the model is parsed: the words of `words` that neither the known words nor `cache`
  // hold go into `cache`, encoded with a model cut down to their pieces (piece_subset.h), as long
  // as the pieces parsed that way stay under the vocabulary's size. Past that, or should anything
  // fail, the words are left to sp() as before.
  template <typename Cache>
  void encode_with_subset(const std::vector<std::string_view>& words, Cache& cache) const;

  struct Processor {
    std::once_flag once;
    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp;
    std::atomic<bool> parsed{false};
    std::atomic<int64_t> subset_pieces{0};  // parsed in cut-down models so far
  };
  std::unique_ptr<Processor> processor_;
  uint64_t cache_key_;  // names this vocabulary in each thread's word cache (see encode)
  int size_ = 0;
  struct Pieces {
    std::once_flag once;
    std::vector<std::string> list;
  };
  std::unique_ptr<Pieces> pieces_;
  std::unique_ptr<const std::string> owned_;  // the model's bytes, unless borrowed
  std::string_view serialized_;
  KnownWords words_;
};

}  // namespace router
