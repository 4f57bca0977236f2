// Base64 by a 64-character alphabet and a 256-entry reverse table built at compile time.
// Decoding checks length, alphabet, padding placement and the bits padding drops, in one pass.
// Strictness matters here: a model file that decodes "somehow" would hide corruption.
#include "base/base64.h"

#include <array>
#include <cstdint>

#include "base/errors.h"

namespace router {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr int kInvalid = -1;

constexpr std::array<int, 256> make_reverse() {
  std::array<int, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int>(i);
  }
  return table;
}
constexpr std::array<int, 256> kReverse = make_reverse();

[[noreturn]] void fail(std::string_view where, std::size_t pos, const std::string& why) {
  throw ModelError(std::string(where) + ": invalid base64 at position " + std::to_string(pos) +
                   ": " + why);
}

std::string describe(char c) {
  const auto b = static_cast<unsigned char>(c);
  if (b >= 0x21 && b < 0x7F) return std::string("unexpected character '") + c + "'";
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("unexpected byte 0x") + kHex[b >> 4] + kHex[b & 15];
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = static_cast<unsigned char>(bytes[i]) << 16 |
                       static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(std::string_view text, std::string_view where) {
  if (text.size() % 4 != 0) {
    fail(where, text.size(), "length " + std::to_string(text.size()) + " is not a multiple of 4");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    // Padding may only be the last one or two characters of the last quartet.
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (k >= 4 - pad) continue;
      const int d = kReverse[static_cast<unsigned char>(c)];
      if (d == kInvalid) {
        fail(where, i + k, c == '=' ? "padding '=' before the end" : describe(c));
      }
      v |= static_cast<uint32_t>(d) << (18 - 6 * k);
    }
    // Canonical form: the bits that padding drops must be zero.
    if ((pad == 1 && (v & 0xFF) != 0) || (pad == 2 && (v & 0xFFFF) != 0)) {
      fail(where, i + 3 - pad, "non-zero bits before the padding (not a canonical encoding)");
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xFF));
  }
  return out;
}

}  // namespace router
