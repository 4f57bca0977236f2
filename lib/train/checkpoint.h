// A training run's state at the end of an epoch, so that `router train --resume` continues it to
// the same bytes as a run never stopped: the weights, AdamW's moments and step count, the moving
// average, the best weights, and where early stopping stands. The random streams need no state:
// each is drawn from the seed and the epoch, step or example (base/random_streams.h).
//
// The file: "ROUTERCK", the JSON header's size (u32, little-endian), the JSON header, then the
// float tensors of params, first moments, second moments, the average (with --ema only) and the
// best weights, each in for_each_tensor's order. Written whole or not at all (OutputFile).
#pragma once

#include <cstdint>
#include <string>

#include "nn/params.h"

namespace router {

struct Checkpoint {
  // Of the options and the data: a checkpoint resumes only the run that wrote it.
  std::string fingerprint;
  int epoch = 0;  // epochs finished
  int64_t step = 0;
  int best_epoch = 0, since_best = 0;
  Params<float> params, first_moments, second_moments, average, best;  // average: empty if unused
};

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// True when `path` may take a checkpoint: absent, empty, not a regular file (a device, a pipe),
// or a checkpoint already. Anything else is someone's file, which a checkpoint must not replace.
bool may_hold_checkpoint(const std::string& path);
// Fails early for a --resume file that cannot be one: absent, a directory (IoError), or a
// regular file that does not begin as a checkpoint (InputError). read_checkpoint checks the rest.
void check_resumable(const std::string& path);
// Reads a checkpoint whose tensors have the shapes `config` implies. Throws InputError naming
// the path for a file that is not one, or not of this shape.
Checkpoint read_checkpoint(const std::string& path, const Config& config);

}  // namespace router
