// What this build computes with, for `router --version`: the vector instructions the arithmetic
// uses decide how its sums round, so a trained model's bits are those of any build with the same
// set (docs/architecture.md, "Training").
#pragma once

#include <string>

namespace router {

// E.g. "AVX-512, AVX2, FMA (16 floats a vector)".
std::string vector_instructions();

}  // namespace router
