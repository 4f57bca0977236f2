// SHA-256 (FIPS 180-4), to record in a model file exactly which data trained it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace router {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::string hex_digest();  // finishes the hash; call once

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

// Hex SHA-256 of a whole file, and its size in bytes; throws IoError.
std::string sha256_file(const std::string& path, uint64_t* size = nullptr);

}  // namespace router
