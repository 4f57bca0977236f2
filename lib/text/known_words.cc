#include "text/known_words.h"

#include <algorithm>

#include "base/errors.h"
#include "base/little_endian.h"

namespace router {

KnownWords KnownWords::view(std::string_view bytes, int vocab_size, const std::string& where) {
  const auto bad = [&](const std::string& why) {
    return ModelError(where + ": bad table of known words: " + why);
  };
  if (bytes.size() < 4) throw bad("shorter than its count");
  KnownWords t;
  t.bytes_ = bytes;
  t.count_ = get_u32(bytes, 0);
  t.vocab_size_ = vocab_size;
  const uint64_t offsets = 4 + 8 * static_cast<uint64_t>(t.count_);
  if (offsets > bytes.size()) throw bad(std::to_string(t.count_) + " words do not fit");
  const uint64_t n_ids = t.count_ ? t.u32(2 * static_cast<size_t>(t.count_)) : 0;
  const uint64_t n_chars = t.count_ ? t.u32(t.count_) : 0;
  if (offsets + 4 * n_ids + n_chars != bytes.size()) throw bad("its sizes do not add up");
  t.ids_at_ = offsets;
  t.chars_at_ = offsets + 4 * n_ids;
  t.n_ids_ = n_ids;
  return t;
}

KnownWords KnownWords::copy(std::string_view bytes, int vocab_size, const std::string& where) {
  auto owned = std::make_shared<const std::string>(bytes);
  KnownWords t = view(*owned, vocab_size, where);
  t.owned_ = std::move(owned);
  return t;
}

std::string KnownWords::build(std::vector<std::pair<std::string, std::vector<int32_t>>> words) {
  std::sort(words.begin(), words.end());
  std::string ids, chars;
  std::string out;
  put_u32(out, static_cast<uint32_t>(words.size()));
  for (const auto& w : words) {
    chars += w.first;
    put_u32(out, static_cast<uint32_t>(chars.size()));
  }
  uint32_t n_ids = 0;
  for (const auto& w : words) {
    for (int32_t id : w.second) put_u32(ids, static_cast<uint32_t>(id));
    n_ids += static_cast<uint32_t>(w.second.size());
    put_u32(out, n_ids);
  }
  return out + ids + chars;
}

uint32_t KnownWords::u32(size_t index) const { return get_u32(bytes_, 4 * index); }

// Word i, or an empty view if its offsets are out of order or out of bounds (a damaged table:
// the lookup then just misses).
std::string_view KnownWords::word(uint32_t i) const {
  const size_t n_chars = bytes_.size() - chars_at_;
  const uint32_t begin = i ? u32(i) : 0, end = u32(i + 1);
  if (begin > end || end > n_chars) return {};
  return bytes_.substr(chars_at_ + begin, end - begin);
}

bool KnownWords::append_ids(std::string_view w, std::vector<int32_t>& out) const {
  if (w.empty()) return false;
  uint32_t lo = 0, hi = count_;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const std::string_view at = word(mid);
    if (at.empty()) return false;
    if (at == w) {
      const size_t begin = mid ? u32(count_ + mid) : 0, end = u32(count_ + mid + 1);
      if (begin > end || end > n_ids_) return false;
      const size_t first = out.size();
      for (size_t k = begin; k < end; ++k) {
        const uint32_t id = get_u32(bytes_, ids_at_ + 4 * k);
        if (id >= static_cast<uint32_t>(vocab_size_)) {
          out.resize(first);
          return false;
        }
        out.push_back(static_cast<int32_t>(id));
      }
      return true;
    }
    if (at < w) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

}  // namespace router
