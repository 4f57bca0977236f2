// `router train`: a new model from labelled JSON Lines / JSON array files. All options have
// defaults (shown in --help) and can come from --config FILE.json; flags given on the command
// line win over the file.
#include <cmath>
#include <iterator>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "base/files.h"
#include "base/sha256.h"
#include "common.h"
#include "model/json_format.h"
#include "progress.h"
#include "train/advice.h"
#include "train/checkpoint.h"
#include "train/teaching.h"
#include "train/trainer.h"

namespace router::app {

namespace {

struct TrainCli {
  std::string train, valid, output, config, preset;
  std::string positional = "sinusoidal";
  std::string pooling = "mean";
  std::string labels;
  std::string time_budget;  // "900", "900s", "15m", "2h"
  double valid_share = 0.1;
  bool record_time = false;
  Fields fields;
  TrainOptions o;
  std::map<std::string, CLI::Option*> by_key;  // JSON key -> option, for --config
};

// Named recipes for --preset, under --config and the flags: the training library's, as options.
// accurate: the defaults, named so that a script can pin them. fast: fast_options().
nlohmann::json preset_options(const std::string& name) {
  const std::map<std::string, TrainOptions> presets = {{"accurate", TrainOptions{}},
                                                       {"fast", fast_options()}};
  const auto it = presets.find(name);
  if (it == presets.end()) {
    std::string names;
    for (const auto& [n, recipe] : presets) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("--preset " + name + ": no such preset; there are " + names);
  }
  nlohmann::json j = options_json(it->second);
  j.erase("seed");
  return j;
}

// Values from `j` (a --config file or a preset, named `source`) for every option not given on
// the command line or by an earlier source.
void apply_options(TrainCli& t, const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": expected a JSON object of options");
  std::map<const CLI::Option*, std::string> set_by;  // option -> the key of this file that set it
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto opt = t.by_key.find(it.key());
    if (opt == t.by_key.end()) throw InputError(source + ": /" + it.key() + ": unknown option");
    if (const auto seen = set_by.find(opt->second); seen != set_by.end()) {
      throw InputError(source + ": /" + it.key() + " and /" + seen->second +
                       " are the same option; give one");
    }
    set_by[opt->second] = it.key();
    if (opt->second->count() > 0) continue;  // the command line wins
    std::vector<std::string> values;         // a list (--teacher) gives one value per element
    for (const auto& v : it->is_array() ? *it : nlohmann::json::array({*it})) {
      values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    try {
      opt->second->clear();
      opt->second->add_result(values);
      opt->second->run_callback();
    } catch (const CLI::Error& e) {
      throw InputError(source + ": /" + it.key() + ": " + e.what());
    }
  }
}

void apply_config_file(TrainCli& t) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(t.config));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(t.config + ": not valid JSON: " + e.what());
  }
  apply_options(t, j, t.config);
}

void apply_preset(TrainCli& t) {
  apply_options(t, preset_options(t.preset), "--preset " + t.preset);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

nlohmann::json label_counts(const std::vector<Example>& examples) {
  std::map<std::string, int> counts;
  for (const auto& e : examples) ++counts[e.label];
  return counts;
}

// "900", "900s", "15m" or "2h" -> seconds.
double parse_duration(const std::string& text) {
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  const std::string unit = text.substr(std::min(used, text.size()));
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (!(v > 0) || scale == 0 || !std::isfinite(v)) {
    throw UsageError("--time-budget " + text + ": expected a duration such as 900, 90s, 15m or 2h");
  }
  return v * scale;
}

// The options as given, checked before any data is read: fail now, not after an hour.
void check_options(TrainCli& t) {
  if (!t.config.empty()) apply_config_file(t);
  if (!t.preset.empty()) apply_preset(t);
  if (!t.time_budget.empty()) t.o.time_budget = parse_duration(t.time_budget);
  t.o.config.positional = positional_from_string(t.positional);
  t.o.config.pooling = pooling_from_string(t.pooling);
  t.o.labels = split_list(t.labels);
  if (!t.valid.empty() && same_file(t.train, t.valid)) {
    spdlog::warn(
        "--train and --valid are the same file: validation will not measure generalisation");
  }
  for (const std::string* in : {&t.train, &t.valid}) {
    if (in->empty()) continue;
    check_not_input(*in, t.output);
    if (!t.o.checkpoint.empty()) check_not_input(*in, t.o.checkpoint);
  }
  if (!t.o.checkpoint.empty()) {
    if (t.o.checkpoint == t.output || same_file(t.o.checkpoint, t.output)) {
      throw UsageError(
          "--checkpoint and -o name the same file; the model and the run's state "
          "need a file each");
    }
    check_writable(t.o.checkpoint);
    if (!may_hold_checkpoint(t.o.checkpoint)) {
      throw UsageError("--checkpoint " + t.o.checkpoint +
                       ": the file exists and is not a training checkpoint; it would be replaced "
                       "every epoch, so name a new file");
    }
  }
  if (!t.o.resume.empty()) check_resumable(t.o.resume);
  if (t.o.teachers.empty() && t.by_key.at("teacher_weight")->count() > 0) {
    throw UsageError(
        "--teacher-weight without --teacher: there is no teacher to weigh; give "
        "--teacher FILE or leave the weight out");
  }
  if (t.o.config.d_model % t.o.config.n_heads != 0) {
    throw UsageError("--heads " + std::to_string(t.o.config.n_heads) +
                     " does not divide --d-model " + std::to_string(t.o.config.d_model) +
                     " (each head is d_model / heads wide)");
  }
  check_writable(t.output);
}

// --train and --valid (or a share of --train held out), with the warnings about them.
void read_data(const TrainCli& t, std::vector<Example>& train, std::vector<Example>& valid) {
  train = read_examples(t.train, true, t.fields);
  if (!t.valid.empty()) {
    valid = read_examples(t.valid, true, t.fields);
  } else {
    holdout_split(train, t.valid_share, t.o.seed, valid);
    spdlog::info("no --valid: holding out {} of {} examples (seed {})", valid.size(),
                 train.size() + valid.size(), t.o.seed);
  }
  spdlog::info("training on {} examples, validating on {}; seed {}", train.size(), valid.size(),
               t.o.seed);
  for (const auto& w : data_warnings(train, valid, t.o.labels)) spdlog::warn("{}", w);
}

// --teacher: the loaded teachers' probabilities on every training email (train/teaching.h),
// and how often they agree with the labels.
Teaching teach_and_report(const TrainCli& t, const std::vector<Model>& teachers,
                          const std::vector<Example>& train) {
  Teaching teaching = teach(teachers, t.o.teachers, train, t.o.labels, t.o.threads);
  spdlog::info("{} teacher{}: {:.2f}% of the training labels are theirs too; weight {}",
               teachers.size(), teachers.size() == 1 ? "" : "s",
               100 * teacher_agreement(teaching, train), t.o.teacher_weight);
  return teaching;
}

// One log line per epoch, and the progress bar for its steps.
TrainHooks progress_hooks(ProgressBar& bar, double& best_train_accuracy) {
  TrainHooks hooks;
  hooks.on_step = [&bar](int done, int total) { bar.update(done, total); };
  hooks.on_pretrain_epoch = [&bar](int epoch, int epochs, double loss, double right) {
    bar.clear();
    spdlog::info("pretraining epoch {}/{}: masked-token loss {:.4f}, {:.1f}% right", epoch, epochs,
                 loss, 100 * right);
  };
  hooks.on_epoch = [&bar, &best_train_accuracy](const EpochReport& r) {
    bar.clear();
    if (r.best) best_train_accuracy = r.train_accuracy;
    spdlog::info(
        "{}epoch {:>2}/{}  loss {:.4f}  acc {:.4f}  valid loss {:.4f}  valid acc {:.4f}  "
        "{:.0f} ex/s  {:.1f}s elapsed  ETA {:.0f}s{}",
        r.members > 1 ? fmt::format("member {}/{}  ", r.member, r.members) : "", r.epoch, r.epochs,
        r.train_loss, r.train_accuracy, r.valid_loss, r.valid_accuracy, r.examples_per_second,
        r.elapsed, r.eta, r.best ? "  *best" : "");
    spdlog::debug(
        "epoch {:>2} time: passes {:.2f}s (threads {:.0f}% busy), update {:.2f}s, "
        "validation {:.2f}s",
        r.epoch, r.steps_seconds,
        100 * r.shards_busy_seconds / std::max(1e-9, r.threads_used * r.steps_seconds),
        r.update_seconds, r.valid_seconds);
  };
  return hooks;
}

// The model file's metadata: what it was trained on and with, and how it did.
nlohmann::json metadata(const TrainCli& t, const std::vector<Example>& train,
                        const std::vector<Example>& valid, const TrainResult& result) {
  uint64_t size = 0;
  nlohmann::json meta;
  meta["trained_by"] = "router train";
  meta["train_file"] = {{"name", t.train}, {"sha256", sha256_file(t.train, &size)}};
  meta["train_file"]["bytes"] = size;
  if (!t.valid.empty()) {
    meta["valid_file"] = {{"name", t.valid}, {"sha256", sha256_file(t.valid, &size)}};
    meta["valid_file"]["bytes"] = size;
  } else {
    meta["valid_file"] = {{"held_out_share", t.valid_share}};
  }
  for (const auto& path : t.o.teachers) {
    meta["teachers"].push_back({{"name", path}, {"sha256", sha256_file(path, &size)}});
    meta["teachers"].back()["bytes"] = size;
  }
  meta["label_counts"] = label_counts(train);
  meta["train_examples"] = train.size();
  meta["valid_examples"] = valid.size();
  meta["options"] = options_json(result.options);
  // Turned off for a label its name would choose: recorded, so --config repeats that too.
  if (t.o.out_of_scope.empty() && !out_of_scope_by_name(train, valid).empty()) {
    meta["options"]["out_of_scope"] = "";
  }
  meta["seed"] = t.o.seed;
  meta["best_epoch"] = result.best_epoch;
  for (const auto& m : result.members) {
    meta["members"].push_back(
        {{"seed", m.seed}, {"best_epoch", m.best_epoch}, {"valid_accuracy", m.valid_accuracy}});
  }
  meta["valid_metrics"] = {{"accuracy", result.valid_accuracy},
                           {"loss", result.valid_loss},
                           {"ece_before_calibration", result.ece_before},
                           {"ece_after_calibration", result.ece_after},
                           {"temperature", result.temperature}};
  if (result.rejection) {
    meta["valid_metrics"]["rejected_below"] = result.rejection->below;
    meta["valid_metrics"]["in_scope_accuracy"] = result.reject_in_scope_accuracy;
    if (result.reject_recall >= 0) {
      meta["valid_metrics"]["out_of_scope_recall"] = result.reject_recall;
    }
  }
  if (result.interrupted) meta["interrupted"] = true;
  // Wall-clock values would make two identical trainings differ, so they are opt-in.
  if (t.record_time) meta["training_seconds"] = result.seconds;
  return meta;
}

// --out-of-scope not given: a label named oos (or out_of_scope) is "none of these".
void out_of_scope_from_names(TrainCli& t, const std::vector<Example>& train,
                             const std::vector<Example>& valid) {
  if (t.by_key.at("out_of_scope")->count() > 0) return;
  t.o.out_of_scope = out_of_scope_by_name(train, valid);
  if (!t.o.out_of_scope.empty()) {
    spdlog::info(
        "label '{}' is \"none of these\" by its name: learning when to give it "
        "(--out-of-scope '' to train it as a label like the others)",
        t.o.out_of_scope);
  }
}

void run(TrainCli& t) {
  check_options(t);
  std::vector<Model> teachers;  // loaded before the data: a broken file fails at once
  for (const auto& path : t.o.teachers) teachers.push_back(load_model(path));
  std::vector<Example> train, valid;
  read_data(t, train, valid);
  out_of_scope_from_names(t, train, valid);
  ProgressBar bar("  step");
  double best_train_accuracy = 0;
  TrainResult result;
  std::optional<Teaching> teaching;
  if (!teachers.empty()) teaching = teach_and_report(t, teachers, train);
  Model model = train_model(train, valid, t.o, progress_hooks(bar, best_train_accuracy), result,
                            teaching ? &*teaching : nullptr);
  if (result.members.empty()) {
    spdlog::info("best epoch {}: valid accuracy {:.4f}; temperature {:.3f}; ECE {:.4f} -> {:.4f}",
                 result.best_epoch, result.valid_accuracy, result.temperature, result.ece_before,
                 result.ece_after);
  } else {
    std::string each;
    for (const auto& m : result.members) {
      each += fmt::format("{}{:.4f} (epoch {})", each.empty() ? "" : ", ", m.valid_accuracy,
                          m.best_epoch);
    }
    spdlog::info(
        "ensemble of {}: valid accuracy {:.4f} (members alone: {}); temperature {:.3f}; "
        "ECE {:.4f} -> {:.4f}",
        result.members.size(), result.valid_accuracy, each, result.temperature, result.ece_before,
        result.ece_after);
  }
  if (const auto& r = result.rejection) {
    spdlog::info(
        "none of these: below {} {:.4f} an email is \"{}\" (validation: in-scope accuracy "
        "{:.4f}{})",
        r->score == Rejection::Score::kInScope ? "an in-scope probability of" : "confidence",
        r->below, r->label, result.reject_in_scope_accuracy,
        result.reject_recall < 0
            ? fmt::format(", no out-of-scope example: the least confident {:g}% rejected",
                          100 * kRejectShare)
            : fmt::format(", out-of-scope recall {:.4f}", result.reject_recall));
  }
  for (const auto& a : training_advice(result, t.o, best_train_accuracy)) spdlog::warn("{}", a);
  model.mutable_metadata() = metadata(t, train, valid, result);
  save_model(model, t.output);
  if (result.interrupted) {
    const int planned = result.options.ensemble;
    const std::string epoch = "(epoch " + std::to_string(result.best_epoch) + " of " +
                              std::to_string(result.options.epochs) + ")";
    const std::string what = planned == 1 ? "the best model so far " + epoch
                             : model.members() > 1 || !result.interrupted_first_member
                                 ? "the " + std::to_string(model.members()) + " finished member" +
                                       (model.members() > 1 ? "s" : "") + " of " +
                                       std::to_string(planned)
                                 : "the first member's best so far " + epoch;
    throw Error(ExitCode::kInterrupted, "interrupted: wrote " + what + " to " + t.output +
                                            ", marked \"interrupted\": true in its metadata");
  }
  spdlog::info("wrote {} ({:.1f}s)", t.output, result.seconds);
}

}  // namespace

namespace {

// Adds options that --config can also set, in one help group, each under its JSON key.
struct ConfigOptions {
  CLI::App& cmd;
  TrainCli& t;
  std::string group;
  template <typename V>
  CLI::Option* operator()(const char* flag, const char* key, V& var, const std::string& help) {
    CLI::Option* opt = cmd.add_option(flag, var, help)->capture_default_str()->group(group);
    t.by_key[key] = opt;
    return opt;
  }
};

// What every run names: the data, where the model goes, a recipe.
void add_essential_options(CLI::App& cmd, TrainCli& t) {
  const char* group = "Data and output";
  cmd.add_option("--train", t.train,
                 "Training data: JSON Lines or a JSON array of {text, label}, CSV or TSV with "
                 "a header, fastText __label__ lines")
      ->required()
      ->group(group);
  cmd.add_option("--valid", t.valid, "Validation data (default: hold out --valid-share of --train)")
      ->group(group);
  add_field_options(cmd, t.fields);
  cmd.get_option("--text-field")->group(group);
  cmd.get_option("--label-field")->group(group);
  cmd.add_option("-o,--output", t.output, "Where to write the model (JSON; - for standard output)")
      ->required()
      ->group(group);
  cmd.add_option("--checkpoint", t.o.checkpoint,
                 "Keep the run's state in FILE at the end of every epoch (for --resume)")
      ->group(group);
  cmd.add_option("--resume", t.o.resume,
                 "Continue the run a --checkpoint FILE was written for (the same data and "
                 "options): the same model as a run never stopped")
      ->group(group);
  cmd.add_option(
         "--config", t.config,
         "Options from a JSON object (a model's metadata.options is one); flags override it")
      ->group(group);
  cmd.add_option("--preset", t.preset,
                 "A named recipe under --config and the flags: accurate (the defaults) or fast "
                 "(d_model 64, 20 epochs of batch 32: about 3 points less on CLINC150, in a "
                 "twentieth of the time)")
      ->group(group);
  ConfigOptions add{cmd, t, group};
  add("--labels", "labels", t.labels, "Comma-separated label order (default: sorted)");
  add("--valid-share", "valid_share", t.valid_share, "Held-out share when --valid is absent")
      ->check(CLI::Range(0.01, 0.5));
  add("--out-of-scope", "out_of_scope", t.o.out_of_scope,
      "The label of mail that is none of the others: learn a score below which an email gets "
      "it, from validation examples of it (or, with none, rejecting the lowest 5%). The score "
      "is the confidence, or, when the training data has the label too, the probability of "
      "being in scope (default: a label named oos, out_of_scope or out-of-scope; '' for none)")
      ->default_str("by name");
  add("--threads", "threads", t.o.threads, "Threads (0 = all cores); never changes the result")
      ->check(CLI::Range(0, 256));
  cmd.add_flag("--record-time", t.record_time,
               "Store the training time in the metadata (the file then differs run to run)")
      ->group(group);
}

// The shape of the model.
void add_architecture_options(CLI::App& cmd, TrainCli& t) {
  ConfigOptions add{cmd, t, "Model"};
  Config& c = t.o.config;
  add("--d-model", "d_model", c.d_model, "Model width")->check(CLI::Range(1, 4096));
  add("--heads", "heads", c.n_heads, "Attention heads (must divide --d-model)")
      ->check(CLI::Range(1, 256));
  add("--layers", "layers", c.n_layers, "Encoder blocks")->check(CLI::Range(0, 64));
  add("--d-ff", "d_ff", c.d_ff, "Feed-forward width")->check(CLI::Range(1, 16384));
  add("--max-len", "max_len", c.max_len,
      "Tokens kept per email (the first ones); 0 or absent: from the data, the 99th percentile "
      "of the training emails' lengths rounded up to a power of two, 64 to 512")
      ->check(CLI::Range(0, 8192))
      ->default_str("auto");
  add("--positional", "positional", t.positional, "sinusoidal or none")
      ->check(CLI::IsMember({"sinusoidal", "none"}));
  add("--pooling", "pooling", t.pooling,
      "mean, max or attention: how token vectors become the email's vector (max: each "
      "column's largest value, so one clause is not diluted in a long email; attention: a "
      "mean weighed by a learned query, starting as the mean)")
      ->check(CLI::IsMember(
          std::vector<std::string>(std::begin(kPoolingNames), std::end(kPoolingNames))));
  add("--local-heads", "local_heads", t.o.local_heads,
      "Heads of the first layer that start out attending to the previous and the next token, "
      "alternately (sinusoidal positions; a starting point training may change)")
      ->check(CLI::Range(0, 256));
  add("--vocab-size", "vocab_size", c.vocab_size, "Subword vocabulary size")
      ->check(CLI::Range(300, 1 << 20));
  // A model's metadata.options names these two as its config does, and is a --config too.
  t.by_key["n_heads"] = t.by_key.at("heads");
  t.by_key["n_layers"] = t.by_key.at("layers");
}

// How long and how the weights learn.
void add_schedule_options(CLI::App& cmd, TrainCli& t) {
  ConfigOptions add{cmd, t, "Training"};
  TrainOptions& o = t.o;
  add("--epochs", "epochs", o.epochs,
      "Maximum epochs (auto: " + std::to_string(kDefaultEpochs) + ", fewer for data that would " +
          "make more than " + std::to_string(kDefaultSteps) + " steps)")
      ->check(CLI::Range(0, 100000))
      ->default_str("auto");
  cmd.add_option("--time-budget", t.time_budget,
                 "Spend at most this time on this machine (900, 90s, 15m, 2h), planned from a "
                 "probe of its speed: as many of the epochs as fit, or, when two or more whole "
                 "runs fit and --ensemble is not given, that many members (at most " +
                     std::to_string(kBudgetMembers) +
                     "); metadata.options records the plan, so --config repeats the run exactly")
      ->group("Training");
  add("--ensemble", "ensemble", o.ensemble,
      "Train this many models with seeds --seed, --seed + 1, ... and average their logits: "
      "more accurate and better at \"none of these\", each prediction this many times the "
      "work (auto: as --time-budget plans; with no budget " +
          std::to_string(kOutOfScopeMembers) +
          " when the training data has --out-of-scope examples, else 1)")
      ->check(CLI::Range(0, kMaxMembers))
      ->default_str("auto");
  add("--pretrain-epochs", "pretrain_epochs", o.pretrain_epochs,
      "Epochs of masked-token pretraining on the training emails' text before the labelled "
      "epochs: the encoder learns to fill in masked words from the words around them, then "
      "learns the labels from there (0 = none; not with --time-budget)")
      ->check(CLI::Range(0, 100000));
  add("--patience", "patience", o.patience,
      "Stop after this many epochs without improvement (0 = never stop early)")
      ->check(CLI::Range(0, 100000));
  add("--batch-size", "batch_size", o.batch_size, "Emails per step")->check(CLI::Range(1, 65536));
  t.by_key["pair_batches"] =
      cmd.add_flag("--pair-batches", o.pair_batches,
                   "Keep the records that share a pair id (a \"pair\" member: the two emails "
                   "of a swap pair) in one batch, so that each step sees both sides and what "
                   "tells them apart")
          ->group("Training");
  add("--lr", "lr", o.lr, "Peak learning rate")->check(CLI::Range(0.0, 10.0));
  add("--warmup", "warmup", o.warmup, "Share of steps for linear warm-up")
      ->check(CLI::Range(0.0, 1.0));
  add("--weight-decay", "weight_decay", o.weight_decay, "AdamW decoupled weight decay")
      ->check(CLI::Range(0.0, 10.0));
  add("--clip", "clip", o.clip, "Max global gradient norm (0 = off)")->check(CLI::Range(0.0, 1e6));
  add("--dropout", "dropout", o.dropout, "Dropout on embeddings, attention and residuals")
      ->check(CLI::Range(0.0, 0.95));
  add("--token-dropout", "token_dropout", o.token_dropout,
      "Share of training tokens replaced by [UNK] (word dropout)")
      ->check(CLI::Range(0.0, 0.95));
  add("--bpe-dropout", "bpe_dropout", o.bpe_dropout,
      "Share of subword merges skipped, drawn anew each epoch, when training texts are encoded "
      "(BPE-dropout; 0 = off)")
      ->check(CLI::Range(0.0, 0.95));
  add("--label-smoothing", "label_smoothing", o.label_smoothing, "Label smoothing")
      ->check(CLI::Range(0.0, 0.99));
  add("--ema", "ema", o.ema,
      "Keep a moving average of the weights with this decay per step, e.g. 0.999 (0 = off); "
      "validation and the saved model use it")
      ->check(CLI::Range(0.0, 0.99999));
  add("--seed", "seed", o.seed, "Random seed (initialisation, shuffling, dropout)");
  add("--teacher", "teachers", o.teachers,
      "Distil: a trained model (repeat for several) whose calibrated probabilities on each "
      "training email, averaged over the teachers, are mixed into its target; several seeds' "
      "models teach one model nearly what their ensemble knows, at one model's cost")
      ->check(CLI::ExistingFile);
  add("--teacher-weight", "teacher_weight", o.teacher_weight,
      "The teachers' share of each target (the label keeps the rest)")
      ->check(CLI::Range(0.0, 1.0));
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto t = std::make_shared<TrainCli>();
  auto* cmd = app.add_subcommand("train", "Train a model on labelled emails");
  add_essential_options(*cmd, *t);
  add_architecture_options(*cmd, *t);
  add_schedule_options(*cmd, *t);
  cmd->callback([t] { run(*t); });
}

}  // namespace router::app
