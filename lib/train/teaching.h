// Knowledge distillation's first half: what trained models (the teachers) say about each
// training email, for train_model to mix into the targets (TrainOptions::teachers).
#pragma once

#include <string>
#include <vector>

#include "input/dataset.h"
#include "model/model.h"
#include "train/trainer.h"

namespace router {

// The mean of the teachers' calibrated probabilities on every training email, in the first
// teacher's label order, each read as `router batch` reads it (model/labelling.h). `names[i]`
// names teacher i in errors: InputError when a teacher's labels are not the training data's (and
// `labels`', when given), or an email has no tokens for it.
Teaching teach(const std::vector<Model>& teachers, const std::vector<std::string>& names,
               const std::vector<Example>& train, const std::vector<std::string>& labels,
               int threads);

// The share of training examples whose label is the teachers' most probable one.
double teacher_agreement(const Teaching& teaching, const std::vector<Example>& train);

}  // namespace router
