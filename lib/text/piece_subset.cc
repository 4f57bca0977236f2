#include "text/piece_subset.h"

#include <algorithm>
#include <bitset>
#include <unordered_set>

namespace router {
namespace {

constexpr std::string_view kWordMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word mark

// ModelProto's repeated `pieces` field and, inside each piece, its `piece` and `type` fields
// (sentencepiece_model.proto). Types NORMAL and UNUSED are the learned pieces; the others are
// kept whatever the words.
constexpr uint64_t kPiecesField = 1, kPieceText = 1, kPieceType = 3;
constexpr uint64_t kNormal = 1, kUnused = 5;
constexpr int kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5;

// Reads protobuf wire format: varints, keys, and the payloads they announce.
class Wire {
 public:
  explicit Wire(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }
  size_t left() const { return rest_.size(); }

  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto b = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      v |= uint64_t{b & 0x7Fu} << shift;
      if (b < 0x80) return true;
    }
    return false;
  }

  // One field: its number and wire type, and its value (varints) or payload (length-delimited).
  bool field(uint64_t& number, int& type, uint64_t& value, std::string_view& payload) {
    uint64_t key = 0;
    if (!varint(key)) return false;
    number = key >> 3;
    type = static_cast<int>(key & 7);
    switch (type) {
      case kVarint:
        return varint(value);
      case kFixed64:
        return skip(8);
      case kFixed32:
        return skip(4);
      case kBytes:
        if (!varint(value) || value > rest_.size()) return false;
        payload = rest_.substr(0, value);
        rest_.remove_prefix(value);
        return true;
      default:  // groups: not in this schema
        return false;
    }
  }

 private:
  bool skip(size_t n) {
    if (n > rest_.size()) return false;
    rest_.remove_prefix(n);
    return true;
  }
  std::string_view rest_;
};

}  // namespace

std::optional<PieceSubset> piece_subset(std::string_view serialized,
                                        const std::vector<std::string_view>& words) {
  // Every substring of every "▁" + word, and the bytes they use (a cheap first test).
  std::vector<std::string> marked;
  marked.reserve(words.size());
  size_t longest = 0;
  std::bitset<256> bytes;
  for (const std::string_view w : words) {
    marked.push_back(std::string(kWordMark) + std::string(w));
    longest = std::max(longest, marked.back().size());
    for (const char c : marked.back()) bytes.set(static_cast<unsigned char>(c));
  }
  std::unordered_set<std::string_view> substrings;
  for (const std::string_view m : marked) {
    for (size_t at = 0; at < m.size(); ++at) {
      for (size_t n = 1; at + n <= m.size(); ++n) substrings.insert(m.substr(at, n));
    }
  }
  auto wanted = [&](std::string_view piece) {
    if (piece.size() > longest) return false;
    for (const char c : piece) {
      if (!bytes.test(static_cast<unsigned char>(c))) return false;
    }
    return substrings.count(piece) > 0;
  };

  PieceSubset out;
  out.serialized.reserve(serialized.size() / 8);
  Wire model(serialized);
  int32_t id = 0;
  while (!model.done()) {
    const size_t start = serialized.size() - model.left();
    uint64_t number = 0, value = 0;
    int type = 0;
    std::string_view payload;
    if (!model.field(number, type, value, payload)) return std::nullopt;
    const std::string_view raw = serialized.substr(start, serialized.size() - model.left() - start);
    if (number != kPiecesField || type != kBytes) {
      out.serialized.append(raw);  // trainer and normaliser specs, as they are
      continue;
    }
    std::string_view text;
    uint64_t piece_type = kNormal;
    Wire piece(payload);
    while (!piece.done()) {
      uint64_t n = 0, value = 0;
      int t = 0;
      std::string_view p;
      if (!piece.field(n, t, value, p)) return std::nullopt;
      if (n == kPieceText && t == kBytes) text = p;
      if (n == kPieceType && t == kVarint) piece_type = value;
    }
    if ((piece_type != kNormal && piece_type != kUnused) || wanted(text)) {
      out.serialized.append(raw);
      out.ids.push_back(id);
    }
    ++id;
  }
  return out;
}

}  // namespace router
