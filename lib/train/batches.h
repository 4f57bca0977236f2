// How one epoch's training examples are cut into batches: a seeded shuffle, then windows of 16
// batches sorted by length, so that a batch pads little. With --pair-batches the shuffled units
// are groups of examples that share a pair id, so that both sides of a swap pair meet in one step.
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "input/dataset.h"

namespace router {

// The batches of one epoch, lists of indices into `ids` (each example's token ids), in the order
// they are trained on. The units shuffled and sorted are `units` (lists of indices that stay
// together), or with none each example alone; a unit is cut only where a batch ends. Every index
// appears once.
std::vector<std::vector<int>> epoch_batches(const std::vector<std::vector<int32_t>>& ids,
                                            const std::vector<std::vector<int>>& units,
                                            int batch_size, Rng& rng);

// --pair-batches: the indices of `train` grouped by pair id, groups in order of first
// appearance; an example with no pair id is a group of its own. Throws InputError when no
// example has a pair id.
std::vector<std::vector<int>> pair_units(const std::vector<Example>& train);

}  // namespace router
