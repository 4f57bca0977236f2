// A small, portable random generator. The standard library's distributions differ between
// implementations, and a seed must give the same model everywhere, so router draws its own
// numbers: splitmix64 for bits, Box-Muller for normals.
#pragma once

#include <cmath>
#include <cstdint>

namespace router {

// Mixes a 64-bit value; also used to derive independent streams (seed, step, example).
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() { return mix64(state_++ * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n > 0. The modulo bias is below 2^-40 for any n < 2^24.
  uint64_t below(uint64_t n) { return next() % n; }
  double normal() {
    double u1 = uniform();
    double u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace router
