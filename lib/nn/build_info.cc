#include "nn/build_info.h"

#include <Eigen/Core>

namespace router {

std::string vector_instructions() {
  std::string sets;
  auto add = [&](const char* name) { sets += sets.empty() ? name : std::string(", ") + name; };
#if defined(__AVX512F__)
  add("AVX-512");
#endif
#if defined(__AVX2__)
  add("AVX2");
#elif defined(__AVX__)
  add("AVX");
#elif defined(__SSE4_2__)
  add("SSE4.2");
#elif defined(__SSE2__)
  add("SSE2");
#elif defined(__ARM_NEON)
  add("NEON");
#endif
#if defined(__FMA__)
  add("FMA");
#endif
  if (sets.empty()) sets = "none";
  return sets + " (" + std::to_string(Eigen::internal::packet_traits<float>::size) +
         " floats a vector)";
}

}  // namespace router
