// Words whose subword ids were worked out ahead of time: the built-in model carries the ids of
// every word of its training and validation data, computed by SentencePiece when the model was
// packed, so that classifying ordinary mail never has to parse the SentencePiece model at start-up.
// A word missing from the table is simply encoded by SentencePiece; the table only saves time.
//
// The table is a read-only view of bytes (little-endian u32 unless said otherwise):
//   count, word_end[count], id_end[count], ids[id_end[count - 1]], chars[word_end[count - 1]]
// Word i is chars[word_end[i - 1] .. word_end[i]) (from 0 for i = 0), its ids likewise; words are
// sorted bytewise and distinct, so a lookup is a binary search.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace router {

class KnownWords {
 public:
  KnownWords() = default;  // holds no word

  // The table in `bytes`, which must outlive it. Throws ModelError naming `where` if its sizes
  // do not add up. (Entries are checked as they are read, see append_ids; order is not checked:
  // a table out of order only misses words, which then go to SentencePiece.)
  static KnownWords view(std::string_view bytes, int vocab_size, const std::string& where);
  // The same on its own copy of the bytes.
  static KnownWords copy(std::string_view bytes, int vocab_size, const std::string& where);

  // The bytes of a table holding `words` (each with its ids), in any order, without repeats.
  static std::string build(std::vector<std::pair<std::string, std::vector<int32_t>>> words);

  // Appends the ids of `word` to `out` and returns true, or returns false if it is not known
  // (or its entry is damaged: offsets out of order or bounds, an id not below vocab_size).
  bool append_ids(std::string_view word, std::vector<int32_t>& out) const;

  uint32_t size() const { return count_; }

 private:
  uint32_t u32(size_t index) const;  // the index-th u32 of the table
  std::string_view word(uint32_t i) const;

  std::shared_ptr<const std::string> owned_;  // the bytes, when copied
  std::string_view bytes_;
  uint32_t count_ = 0;
  int vocab_size_ = 0;
  size_t ids_at_ = 0, chars_at_ = 0;  // byte offsets of ids[] and chars[]
  size_t n_ids_ = 0;
};

}  // namespace router
