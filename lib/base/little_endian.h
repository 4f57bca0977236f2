// Unsigned 32-bit integers as 4 little-endian bytes: the sizes and offsets of the built-in
// model's binary form (model_binary.h) and of its table of known words (text/known_words.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace router {

inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// The u32 at byte `at` of `bytes`; the caller has checked that 4 bytes are there.
inline uint32_t get_u32(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  }
  return v;
}

}  // namespace router
