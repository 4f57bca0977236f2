// `router demo`: the fee-vs-cake story in the terminal, on the two built-in models: the swap
// pair labelled with and without positions, and the permutation test.
#include <cstdio>

#include "analysis/permutation_test.h"
#include "base/errors.h"
#include "common.h"
#include "model/builtin_model.h"
#include "model/json_format.h"

namespace router::app {

namespace {

constexpr const char* kEmailA = "Refund the delivery fee, not the cake.";
constexpr const char* kEmailB = "Refund the cake, not the delivery fee.";

struct DemoOptions {
  std::string model, nopos_model;
  std::string a = kEmailA, b = kEmailB;
  bool json = false;
};

Model load_or_builtin(const std::string& path, const char* name) {
  if (!path.empty()) return load_model(path);
  if (auto m = builtin_model(name)) return std::move(*m);
  throw UsageError(std::string("this router has no built-in model '") + name +
                   "'; pass --model and --nopos-model");
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

void run(const DemoOptions& o) {
  const Model pos = load_or_builtin(o.model, "crumb");
  const Model nopos = load_or_builtin(o.nopos_model, "crumb-nopos");
  const Prediction pa = pos.predict(o.a), pb = pos.predict(o.b);
  const Prediction na = nopos.predict(o.a), nb = nopos.predict(o.b);
  const double nopos_diff = max_abs_diff(na.probs, nb.probs);
  const double pos_diff = max_abs_diff(pa.probs, pb.probs);
  const PermutationReport perm = permutation_test(pos, o.a);
  auto label = [](const Model& m, const Prediction& p) { return m.labels()[p.label]; };

  if (o.json) {
    auto side = [&](const Model& m, const Prediction& p) {
      return nlohmann::json{
          {"label", label(m, p)}, {"confidence", p.confidence}, {"probs", p.probs}};
    };
    nlohmann::json j = {{"emails", {o.a, o.b}},
                        {"with_positions", {side(pos, pa), side(pos, pb)}},
                        {"without_positions", {side(nopos, na), side(nopos, nb)}},
                        {"labels", pos.labels()},
                        {"max_prob_diff_with_positions", pos_diff},
                        {"max_prob_diff_without_positions", nopos_diff},
                        {"same_label_without_positions", na.label == nb.label},
                        {"different_labels_with_positions", pa.label != pb.label},
                        {"permutation_test",
                         {{"tokens", perm.pieces},
                          {"permutation", perm.perm},
                          {"max_diff_without_positions", perm.max_diff_without_positions},
                          {"max_diff_with_positions", perm.max_diff_with_positions}}}};
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  auto cell = [&](const Model& m, const Prediction& p) {
    return label(m, p) + " " + format_fixed(p.confidence, 4);
  };
  std::printf("The fee-vs-cake swap: the same words, the same counts, a different order.\n\n");
  std::printf("  A  %s\n  B  %s\n\n", o.a.c_str(), o.b.c_str());
  std::printf("     %-30s %s\n", "with positions (crumb)", "without positions (crumb-nopos)");
  std::printf("  A  %-30s %s\n", cell(pos, pa).c_str(), cell(nopos, na).c_str());
  std::printf("  B  %-30s %s\n\n", cell(pos, pb).c_str(), cell(nopos, nb).c_str());
  std::printf(
      "Without positions the model cannot see order: self-attention is permutation-equivariant\n"
      "and %s pooling is permutation-invariant, so A and B get %s\n"
      "(largest difference between their probability vectors: %s, float rounding).\n",
      to_string(nopos.config().pooling).c_str(),
      na.label == nb.label ? "the same label and confidence" : "DIFFERENT labels (unexpected)",
      sci(nopos_diff).c_str());
  std::printf("With sinusoidal positions added to the embeddings, %s:\nA -> %s, B -> %s.\n\n",
              pa.label != pb.label ? "they get different labels" : "they get the SAME label",
              label(pos, pa).c_str(), label(pos, pb).c_str());
  std::printf("Permutation test: the %zu tokens of A shuffled, first attention layer of crumb.\n",
              perm.pieces.size());
  std::printf("  without positions  attention(shuffled) = shuffled(attention)  max |diff| %s\n",
              sci(perm.max_diff_without_positions).c_str());
  std::printf("  with positions     attention(shuffled) != shuffled(attention) max |diff| %s\n",
              format_fixed(perm.max_diff_with_positions, 3).c_str());
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto opts = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand("demo", "The fee-vs-cake swap and the permutation test");
  cmd->add_option("-m,--model", opts->model, "Model with positions (default: built-in crumb)");
  cmd->add_option("--nopos-model", opts->nopos_model,
                  "The same model without positions (default: built-in crumb-nopos)");
  cmd->add_option("--a", opts->a, "First email of the pair")->capture_default_str();
  cmd->add_option("--b", opts->b, "Second email of the pair")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Print one JSON object");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
