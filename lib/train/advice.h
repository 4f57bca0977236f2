// Guidance for whoever trains a model: what in the data or in the run is likely to disappoint,
// each as one sentence that names the flag to change. Said before training (data_warnings) and
// after it (training_advice); nothing here changes what is trained.
#pragma once

#include <string>
#include <vector>

#include "input/dataset.h"
#include "train/trainer.h"

namespace router {

// Fewer training examples than this for a label, and the label is rarely learned.
constexpr int kFewExamples = 5;

// Before training: labels with fewer than kFewExamples training examples, validation texts that
// are also training texts, and labels listed in `listed` (--labels) that no training example has.
std::vector<std::string> data_warnings(const std::vector<Example>& train,
                                       const std::vector<Example>& valid,
                                       const std::vector<std::string>& listed);

// After training: still improving at the last epoch, training accuracy far above validation
// accuracy, and temperature scaling skipped. `train_accuracy` is that of the best epoch.
std::vector<std::string> training_advice(const TrainResult& result, const TrainOptions& options,
                                         double train_accuracy);

}  // namespace router
