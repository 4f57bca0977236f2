// The classic demonstrations, computed on a real model: the permutation test (attention without
// positions is permutation-equivariant, with positions it is not) and the comparison of two
// emails' probability vectors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace router {

struct PermutationReport {
  std::vector<std::string> pieces;  // the email's tokens, in order
  std::vector<int> perm;            // shuffled slot i holds original token perm[i]
  // max |attention(shuffle(x)) - shuffle(attention(x))| over the first block's attention output
  double max_diff_without_positions = 0;
  double max_diff_with_positions = 0;
};

// Shuffles the tokens of `text` (seeded; never the identity when there are 2+ distinct tokens)
// and runs the model's first attention block with positions switched off and on.
// Throws UsageError if the model has no attention layer.
PermutationReport permutation_test(const Model& model, std::string_view text, uint64_t seed = 7);

// max_k |a_k - b_k|
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace router
