// A small, portable random generator. The standard library's distributions differ between
// implementations, and a seed must give the same model everywhere, so router draws its own
// numbers: splitmix64 for bits, Box-Muller for normals.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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
  uint64_t next() { return bits(state_++); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n); n > 0. The modulo bias is below 2^-40 for any n < 2^24.
  uint64_t below(uint64_t n) { return next() % n; }
  // Dropout decisions for the next n draws: out[i] = 0 where uniform() < p would hold, else
  // keep. The same decisions as that loop, made on the integer draws (uniform() is m * 2^-53
  // exactly, so m * 2^-53 < p iff m < ceil(p * 2^53)), which lets the compiler vectorise it.
  template <typename S>
  void fill_keep_mask(S* out, size_t n, double p, S keep) {
    const uint64_t threshold = static_cast<uint64_t>(std::ceil(std::ldexp(p, 53)));
    const uint64_t first = state_;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t m = bits(first + i) >> 11;
      out[i] = m < threshold ? S(0) : keep;
    }
    state_ = first + n;
  }
  double normal() {
    double u1 = uniform();
    double u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  // Draw number `counter` of a stream: a counter-based generator, so draws can be made in bulk.
  static uint64_t bits(uint64_t counter) {
    return mix64(counter * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
  }

  uint64_t state_;
};

// Fisher-Yates on our own draws (std::shuffle's order differs between implementations).
template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace router
