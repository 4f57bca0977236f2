#include "train/teaching.h"

#include <algorithm>
#include <set>

#include "base/errors.h"
#include "model/labelling.h"

namespace router {

namespace {

std::string listed(const std::set<std::string>& labels) {
  std::string out;
  for (const auto& l : labels) out += (out.empty() ? "" : ", ") + l;
  return out;
}

}  // namespace

Teaching teach(const std::vector<Model>& teachers, const std::vector<std::string>& names,
               const std::vector<Example>& train, const std::vector<std::string>& labels,
               int threads) {
  std::set<std::string> wanted(labels.begin(), labels.end());
  for (const auto& e : train) wanted.insert(e.label);
  std::vector<Email> emails;
  for (const auto& e : train) emails.push_back({e.text, ""});
  Teaching teaching;
  for (size_t t = 0; t < teachers.size(); ++t) {
    const Model& teacher = teachers[t];
    const std::set<std::string> has(teacher.labels().begin(), teacher.labels().end());
    if (has != wanted) {
      throw InputError(names[t] + ": a teacher must have the training data's labels (" +
                       listed(wanted) + "); it has " + listed(has));
    }
    if (t == 0) {
      teaching.labels = teacher.labels();
      teaching.probs = Mat<float>::Zero(static_cast<Eigen::Index>(train.size()),
                                        static_cast<Eigen::Index>(wanted.size()));
    }
    std::vector<Eigen::Index> column;  // teacher's label k -> column of teaching.probs
    for (const auto& l : teacher.labels()) {
      column.push_back(std::find(teaching.labels.begin(), teaching.labels.end(), l) -
                       teaching.labels.begin());
    }
    const auto labelled =
        label_emails(teacher, emails, {.header_rules = false, .threads = threads});
    for (size_t i = 0; i < labelled.size(); ++i) {
      if (labelled[i].problem != Problem::kNone) {
        throw InputError(train[i].where + ": \"text\" has no tokens for the teacher " + names[t]);
      }
      const auto& probs = labelled[i].prediction.probs;
      for (size_t k = 0; k < probs.size(); ++k) {
        teaching.probs(static_cast<Eigen::Index>(i), column[k]) += probs[k];
      }
    }
  }
  if (!teachers.empty()) teaching.probs /= static_cast<float>(teachers.size());
  return teaching;
}

double teacher_agreement(const Teaching& teaching, const std::vector<Example>& train) {
  size_t agree = 0;
  for (size_t i = 0; i < train.size(); ++i) {
    Eigen::Index k;
    teaching.probs.row(static_cast<Eigen::Index>(i)).maxCoeff(&k);
    agree += teaching.labels[k] == train[i].label;
  }
  return static_cast<double>(agree) / std::max<size_t>(1, train.size());
}

}  // namespace router
