// `router info`: what a model is: architecture, labels, vocabulary, parameters, provenance.
#include <cstdio>
#include <iostream>

#include "model/builtin_model.h"

#include "common.h"

namespace router::app {

namespace {

struct InfoOptions {
  std::string model;
  bool json = false;
  bool list = false;
};

// The built-in models, one line each: name, labels, what they are.
void list_builtin() {
  const std::pair<const char*, const char*> kModels[] = {
      {"crumb", "Crumb's support inbox, sinusoidal positions (the default model)"},
      {"crumb-nopos", "the same architecture, data and seed without positions (router demo)"}};
  for (const auto& [name, what] : kModels) {
    const auto model = builtin_model(name);
    if (!model) {
      std::cout << "this router has no built-in models\n";
      return;
    }
    std::printf("%-12s %zu labels  %s\n", name, model->labels().size(), what);
  }
}

// Parameter counts per part of the model, in file order; of an ensemble, of all its members.
nlohmann::json parameter_counts(const Model& model) {
  auto refs = tensors(model.params());
  int64_t embed = 0, attention = 0, norms = 0, ff = 0, classifier = 0;
  for (const auto& r : refs) {
    const std::string& n = r.name;
    if (n.rfind("embed.", 0) == 0) {
      embed += r.size;
    } else if (n.find(".attn.") != std::string::npos) {
      attention += r.size;
    } else if (n.find(".ff.") != std::string::npos) {
      ff += r.size;
    } else if (n.rfind("classifier.", 0) == 0) {
      classifier += r.size;
    } else {
      norms += r.size;
    }
  }
  const int64_t m = model.members();
  embed *= m, attention *= m, ff *= m, norms *= m, classifier *= m;
  return {{"embedding", embed},       {"attention", attention},
          {"feed_forward", ff},       {"layer_norm", norms},
          {"classifier", classifier}, {"total", embed + attention + ff + norms + classifier}};
}

void run(const InfoOptions& o) {
  if (o.list) return list_builtin();
  const Model model = load_model_or_default(o.model);
  const Config& c = model.config();
  nlohmann::json config = config_json(c);
  config["head_dim"] = c.head_dim();
  nlohmann::json counts = parameter_counts(model);
  if (o.json) {
    nlohmann::json j = {{"model", o.model.empty() ? "built-in" : o.model},
                        {"config", config},
                        {"labels", model.labels()},
                        {"vocab_size", c.vocab_size},
                        {"temperature", model.temperature()},
                        {"members", model.members()},
                        {"parameters", counts},
                        {"metadata", model.metadata()}};
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::cout << "model        " << (o.model.empty() ? "built-in" : o.model) << '\n'
            << "architecture pre-norm transformer encoder, " << to_string(c.pooling) << " pooling\n"
            << "d_model      " << c.d_model << '\n'
            << "heads        " << c.n_heads << " x " << c.head_dim() << '\n'
            << "layers       " << c.n_layers << '\n'
            << "d_ff         " << c.d_ff << '\n'
            << "max_len      " << c.max_len << " tokens\n"
            << "positional   " << to_string(c.positional) << '\n'
            << "vocabulary   " << c.vocab_size << " pieces (SentencePiece BPE)\n";
  if (model.members() > 1) {
    std::cout << "ensemble     " << model.members()
              << " members; predictions average their logits\n";
  }
  std::cout << "temperature  " << format_fixed(model.temperature(), 4) << '\n'
            << "labels       " << model.labels().size() << ":";
  for (const auto& l : model.labels()) std::cout << ' ' << l;
  std::cout << "\nparameters\n";
  for (const char* part :
       {"embedding", "attention", "feed_forward", "layer_norm", "classifier", "total"}) {
    std::printf("  %-13s %10lld\n", part, static_cast<long long>(counts[part].get<int64_t>()));
  }
  std::fflush(stdout);
  if (!model.metadata().empty()) std::cout << "metadata\n" << model.metadata().dump(2) << '\n';
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto opts = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand("info", "Show a model's configuration, labels and parameters");
  add_model_option(*cmd, opts->model);
  cmd->add_flag("--json", opts->json, "Print one JSON object");
  cmd->add_flag("--list", opts->list, "List the built-in models (usable by name with -m)");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
