// `router batch`: labels every record of a JSON Lines file or JSON array and writes the records
// back, each with a "prediction" appended, in input order. JSON Lines is streamed in fixed
// chunks, so memory stays flat for any input size. A record's output depends on that record
// alone (model/labelling.h): identical for any --threads, any chunking, and under
// `parallel --pipe --keep-order` (docs/scaling.md). An mbox is read the same
// way, one message per record: {"message_id", "from", "date", "subject", "prediction"}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/metrics.h"
#include "base/errors.h"
#include "base/files.h"
#include "base/parallel.h"
#include "base/signals.h"
#include "common.h"
#include "input/dataset.h"
#include "input/mail.h"
#include "input/maildir.h"
#include "progress.h"

namespace router::app {

namespace {

using ojson = nlohmann::ordered_json;

struct BatchOptions {
  std::vector<std::string> inputs;
  std::string output = "-";
  std::string model;
  int k = 3;
  int threads = 0;
  double min_confidence = -1;       // < 0: off
  bool skip_invalid = false;        // the old spelling of --on-error skip
  std::string on_error = "record";  // record | skip | fail
  std::string format = "auto";      // auto | json | mbox
  bool no_header_rules = false;
  Fields fields;
};

// One record on its way through: read, validated, labelled and serialised by a worker.
struct Slot {
  ojson value;
  std::string where;
  std::string error;  // non-empty: the record is invalid; the message names it
  std::string out;    // the serialised output record
  Prediction prediction;
  bool had_prediction = false;
  bool mail = false;  // an mbox message: `text` holds it raw, then what the model sees
  std::string text;
  std::string rule;  // a mail rule's reason to label the message `other` (input/mail.h)
  const std::string* json_text = nullptr;  // a JSON record's text member, inside `value`
  std::string path;  // the file of a message read from a .eml file or a Maildir
};

// Non-blank lines of a JSON Lines file: the total for the progress bar's ETA. Only called when
// a bar is drawn, and only for regular files; a fast byte scan, no parsing.
int64_t count_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(1 << 20);
  int64_t count = 0;
  bool content = false;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const std::streamsize got = in.gcount();
    for (std::streamsize i = 0; i < got; ++i) {
      const char c = buf[i];
      if (c == '\n') {
        count += content;
        content = false;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        content = true;
      }
    }
  }
  return count + content;
}

bool progress_shown() {
  return ::isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info;
}

bool regular_file(const std::string& path) {
  struct stat st;
  return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Messages of an mbox: the total for the progress bar's ETA ("From " lines).
int64_t count_messages(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  int64_t count = 0;
  while (std::getline(in, line)) count += looks_like_mbox(line);
  return count;
}

// The raw message in `s.text` -> its header fields in `s.value` and the model's text in `s.text`.
void parse_mail(Slot& s) {
  if (!s.path.empty()) s.value = ojson{{"path", s.path}};
  MailText m = parse_message(s.text, s.where);
  if (s.value.is_null()) s.value = ojson::object();
  s.value["message_id"] = std::move(m.message_id);
  s.value["from"] = std::move(m.from);
  s.value["date"] = std::move(m.date);
  s.value["subject"] = std::move(m.subject);
  s.text = std::move(m.text);
  s.rule = std::move(m.rule);
}

// The record's output line: its members in order, as dump() writes them, with the prediction's
// text in place (replacing an existing "prediction", or appended at the end).
void serialise(const Model& model, const BatchOptions& o, Slot& s) {
  const Prediction& p = s.prediction;
  const std::string pred = prediction_text(model, p, o.k, shown_label(model, p, o.min_confidence));
  s.had_prediction = s.value.contains("prediction");
  s.out = record_with_prediction(s.value, pred);
}

// Reads what the model sees of one record: a message is parsed (parse_mail), a JSON record's
// text member found (`json_text`); an invalid record gets `error`. Runs on any worker; touches
// only `s`.
void prepare_record(const BatchOptions& o, Slot& s) {
  if (!s.error.empty()) return;
  try {
    if (s.mail) {
      parse_mail(s);
      return;
    }
    const ojson* t = find_field(s.value, o.fields.text);
    if (t == nullptr) throw InputError(s.where + ": missing \"" + o.fields.text + "\"");
    if (!t->is_string()) throw InputError(s.where + ": \"" + o.fields.text + "\" is not a string");
    s.json_text = &t->get_ref<const std::string&>();
  } catch (const InputError& e) {
    s.error = e.what();
  }
}

// Labels a chunk's valid records together (label_emails) and serialises each on the workers.
void label_chunk(const Model& model, const BatchOptions& o, std::vector<Slot>& chunk) {
  parallel_for(static_cast<int>(chunk.size()), o.threads,
               [&](int i) { prepare_record(o, chunk[i]); });
  std::vector<Email> emails;
  std::vector<Slot*> slots;
  for (Slot& s : chunk) {
    if (!s.error.empty()) continue;
    emails.push_back({s.mail ? std::string_view(s.text) : *s.json_text, s.rule});
    slots.push_back(&s);
  }
  std::vector<Labelled> labelled = label_emails(model, emails, {!o.no_header_rules, o.threads});
  parallel_for(static_cast<int>(slots.size()), o.threads, [&](int j) {
    Slot& s = *slots[j];
    if (labelled[j].problem != Problem::kNone) {
      s.error = s.where + ": " + problem_text(labelled[j].problem, s.mail, o.fields.text);
      return;
    }
    s.prediction = std::move(labelled[j].prediction);
    serialise(model, o, s);
  });
}

// The output line of a record that could not be labelled: the record as read (for a message, its
// header fields), or {} when it could not be read, with "error" saying why.
std::string error_record(const Slot& s) { return record_with_error(s.value, s.error); }

// The "pair" id of a record: a string as is, any other value as its JSON text, "" if none.
std::string pair_id(const ojson& value) {
  auto it = value.find("pair");
  if (it == value.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// Every input in order as slots: JSON records, the messages of an mbox, a .eml file, or the
// message files of a folder (a Maildir's new/ then cur/, or every file of a plain folder, each
// in name order).
class Inputs {
 public:
  Inputs(const std::vector<std::string>& paths, const std::string& format, Fields fields)
      : format_(format), fields_(std::move(fields)) {
    for (const auto& p : paths) expand(p);
  }
  // True when the only input is one JSON array (the output is then an array too).
  bool one_json_array() {
    if (units_.size() != 1 || units_[0].kind != Kind::kJson) return false;
    open_next();
    return json_ && json_->format() == DataFormat::kJsonArray;
  }
  // The single regular input file and whether it is an mbox, for the progress bar's total.
  std::optional<std::pair<std::string, bool>> single_file() const {
    if (units_.size() != 1 || units_[0].kind == Kind::kEml || !regular_file(units_[0].path)) {
      return std::nullopt;
    }
    return std::pair{units_[0].path, units_[0].kind == Kind::kMbox};
  }
  // Up to kLabelChunk slots; false when every input is done. A record that cannot be read becomes a
  // slot with `error`; `stop_at_error` ends the reading there.
  bool fill(std::vector<Slot>& chunk, bool stop_at_error) {
    while (chunk.size() < kLabelChunk) {
      if (!json_ && !mbox_ && next_unit_ >= units_.size() && current_ < 0) return false;
      if (!json_ && !mbox_ && current_ < 0) open_next();
      const Unit& u = units_[static_cast<size_t>(current_)];
      Slot s;
      if (u.kind == Kind::kEml) {
        s.mail = true;
        s.path = s.where = u.path;
        try {
          s.text = read_file(u.path);
        } catch (const IoError& e) {
          s.error = e.what();
        }
        current_ = -1;
      } else if (mbox_) {
        int64_t line = 0;
        if (!mbox_->next(s.text, line)) {
          mbox_.reset();
          current_ = -1;
          continue;
        }
        s.mail = true;
        s.where = mbox_->where();
      } else {
        Record r;
        try {
          if (!json_->next(r)) {
            json_.reset();
            current_ = -1;
            continue;
          }
          s.value = std::move(r.value);
          s.where = std::move(r.where);
        } catch (const InputError& e) {
          s.error = e.what();
        }
      }
      const bool failed = !s.error.empty();
      chunk.push_back(std::move(s));
      if (failed && stop_at_error) return false;
      // From a pipe or a terminal each record is answered as soon as it is read (a chunk of
      // one), so that a co-process gets its line back; a file keeps whole chunks.
      if (u.path == "-" && stdin_is_a_stream()) return true;
    }
    return true;
  }
  // True while the records come one at a time from a pipe or a terminal.
  bool streaming() const {
    return current_ >= 0 && units_[static_cast<size_t>(current_)].path == "-" &&
           stdin_is_a_stream();
  }

 private:
  enum class Kind { kJson, kMbox, kEml };
  struct Unit {
    Kind kind;
    std::string path;
  };

  void expand(const std::string& path) {
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (auto& f : folder_messages(path)) units_.push_back({Kind::kEml, std::move(f)});
      return;
    }
    if (format_ == "mbox" || (format_ == "auto" && file_is_mbox(path))) {
      units_.push_back({Kind::kMbox, path});
    } else if (format_ == "auto" && path != "-" && input_is_message(path)) {
      units_.push_back({Kind::kEml, path});
    } else {
      units_.push_back({Kind::kJson, path});
    }
  }

  // True for a file that starts with RFC 5322 headers (a .eml), read up to its first 64 kB.
  static bool input_is_message(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string start(1 << 16, '\0');
    in.read(start.data(), static_cast<std::streamsize>(start.size()));
    start.resize(static_cast<size_t>(in.gcount()));
    return looks_like_message(start);
  }

  void open_next() {
    if (current_ >= 0 || next_unit_ >= units_.size()) return;
    current_ = static_cast<int>(next_unit_++);
    const Unit& u = units_[static_cast<size_t>(current_)];
    if (u.kind == Kind::kJson) json_.emplace(u.path, fields_);
    if (u.kind == Kind::kMbox) mbox_.emplace(u.path);
  }

  std::string format_;
  Fields fields_;
  std::vector<Unit> units_;
  size_t next_unit_ = 0;
  int current_ = -1;
  std::optional<RecordReader> json_;
  std::optional<MboxReader> mbox_;
};

// What a run has written and counted so far.
struct Tally {
  int64_t done = 0, skipped = 0, truncated = 0, unlabelled = 0;
  bool warned_prediction = false;
  bool first = true;  // nothing written yet (a JSON array's first element has no comma)
};

// The output text of one chunk's slots, in input order, counted in `tally` and, for records with
// a label, added to `metrics`. With --on-error fail the first invalid slot is thrown, after what
// came before it in the chunk is written.
std::string chunk_text(const Model& model, const BatchOptions& o, bool array,
                       std::vector<Slot>& chunk, OutputFile& out, MetricsAccumulator& metrics,
                       Tally& tally) {
  std::string buffer;
  auto append = [&](const std::string& record) {
    buffer += array ? (tally.first ? "\n" : ",\n") : "";
    buffer += record;
    if (!array) buffer += '\n';
    tally.first = false;
  };
  for (Slot& s : chunk) {
    if (!s.error.empty()) {
      if (o.on_error == "fail") {
        out.write(buffer);  // what came before stays written (on stdout; a file stays absent)
        throw InputError(s.error);
      }
      // At error level so that -q (errors only) still shows what was not labelled.
      spdlog::error("{} {}", o.on_error == "skip" ? "skipped" : "not labelled:", s.error);
      ++tally.skipped;
      if (o.on_error != "skip") append(error_record(s));
      continue;
    }
    if (s.had_prediction && !tally.warned_prediction) {
      spdlog::warn(
          "{}: the record already has a \"prediction\"; it is replaced (and so in "
          "every other record that has one)",
          s.where);
      tally.warned_prediction = true;
    }
    tally.truncated += s.prediction.truncated;
    append(s.out);
    ++tally.done;
    const ojson* label = find_field(s.value, o.fields.label);
    if (label != nullptr && label->is_string()) {
      const auto& truth = label->get_ref<const std::string&>();
      const int t = metrics.index_of(truth);
      metrics.add(truth, scored_label(model, s.prediction), s.prediction.confidence,
                  pair_id(s.value), truth_rank(s.prediction, t));
    } else {
      ++tally.unlabelled;
    }
  }
  return buffer;
}

// After the run, on stderr: emails cut to max_len, the speed (-v), and the evaluation of the
// records that had a label; then exit 6 if some could not be labelled.
void report(const Model& model, const BatchOptions& o, MetricsAccumulator& metrics,
            const Tally& tally, double seconds) {
  if (tally.truncated > 0) {
    spdlog::info("{} email(s) longer than max_len = {} tokens: only the first {} were used",
                 tally.truncated, model.config().max_len, model.config().max_len);
  }
  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::info("{} records in {:.2f}s: {:.0f} emails/s", tally.done, seconds,
                 seconds > 0 ? tally.done / seconds : 0.0);
  }
  // The summary is a report, not a log line, but -q still silences it.
  if (metrics.records() > 0 && spdlog::should_log(spdlog::level::info)) {
    const Evaluation e = metrics.finish();
    std::string text =
        "evaluation of the " + std::to_string(metrics.records()) + " labelled records";
    if (tally.unlabelled > 0) text += " (" + std::to_string(tally.unlabelled) + " without a label)";
    text +=
        ":\n" + (e.n > 0 ? evaluation_text(e) : std::string("no label is known to the model\n"));
    std::fputs(text.c_str(), stderr);
  }
  if (tally.skipped > 0) {
    throw Error(ExitCode::kSkipped,
                std::to_string(tally.skipped) + " record(s) could not be labelled (" +
                    (o.on_error == "skip" ? "skipped" : "written with an \"error\" field") +
                    "); labelled the other " + std::to_string(tally.done));
  }
}

void run(BatchOptions o) {
  if (o.skip_invalid) o.on_error = "skip";
  for (const auto& input : o.inputs) check_not_input(input, o.output);
  check_writable(o.output);
  const Model model = load_model_or_default(o.model);
  Inputs inputs(o.inputs, o.format, o.fields);
  const bool array = inputs.one_json_array();
  const std::optional<double> threshold =
      o.min_confidence >= 0 ? std::optional<double>(o.min_confidence) : std::nullopt;
  // Top-k accuracy only when it says something: with k >= K it is 1 by definition.
  const int K = static_cast<int>(model.labels().size());
  MetricsAccumulator metrics = model_metrics(model, threshold, o.k < K ? o.k : 0);

  int64_t total = 0;
  if (const auto single = inputs.single_file(); single && !array && progress_shown()) {
    total = single->second ? count_messages(single->first) : count_records(single->first);
  }
  ProgressBar bar("  batch");
  const auto start = std::chrono::steady_clock::now();

  OutputFile out(o.output);
  if (array) out.write("[");
  std::vector<Slot> chunk;
  Tally tally;
  for (bool end = false; !end;) {
    check_interrupted();
    chunk.clear();
    // With --on-error fail a bad record ends the reading; the records before it in this chunk
    // are still labelled and written first, so the error reported is the first in the input.
    end = !inputs.fill(chunk, o.on_error == "fail");
    label_chunk(model, o, chunk);
    out.write(chunk_text(model, o, array, chunk, out, metrics, tally));
    if (inputs.streaming()) out.flush();
    bar.update(tally.done + tally.skipped, total);
  }
  if (array) out.write(tally.first ? "]\n" : "\n]\n");
  out.commit();
  bar.clear();
  report(model, o, metrics, tally,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

void add_batch_command(CLI::App& app) {
  auto o = std::make_shared<BatchOptions>();
  auto* cmd = app.add_subcommand(
      "batch",
      "Label every record or message: JSON Lines, CSV, TSV, fastText, mbox, .eml, Maildir");
  cmd->add_option("input", o->inputs,
                  "One or more of: JSON Lines or a JSON array of objects, each with a string "
                  "\"text\"; an mbox; a message (.eml); a Maildir or a folder of messages ('-': "
                  "stdin)")
      ->required();
  cmd->add_option("-o,--output", o->output,
                  "Where to write the records (default '-': stdout); written whole or not at all")
      ->capture_default_str();
  add_model_option(*cmd, o->model);
  add_header_rules_option(*cmd, o->no_header_rules);
  add_field_options(*cmd, o->fields);
  cmd->add_option("--format", o->format,
                  "auto: an mbox if the input starts with a \"From \" line, else JSON; json: JSON "
                  "Lines or array; mbox: a mailbox, one output record per message")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "json", "mbox"}));
  add_top_k_option(*cmd, o->k, "Labels listed in each prediction's top_k (default: 3)");
  add_min_confidence_option(*cmd, o->min_confidence,
                            "Label predictions less confident than this \"needs_review\"");
  cmd->add_option("--on-error", o->on_error,
                  "A record or message that cannot be labelled: record (write it with an "
                  "\"error\" field instead of a prediction), skip (leave it out), or fail (stop "
                  "there, exit 3); record and skip report each on stderr and exit 6 at the end")
      ->capture_default_str()
      ->check(CLI::IsMember({"record", "skip", "fail"}));
  cmd->add_flag("--skip-invalid", o->skip_invalid, "The same as --on-error skip");
  add_threads_option(*cmd, o->threads);
  cmd->footer(
      "Each output record is the input record, fields untouched and in order, with\n"
      "\"prediction\": {\"label\", \"confidence\", \"top_k\": [{\"label\", \"score\"}, ...]}\n"
      "at the end (an existing \"prediction\" is replaced in place). JSON Lines is streamed:\n"
      "one record in, one out, order kept, so router runs unchanged under\n"
      "`parallel --pipe --keep-order`, Hadoop Streaming or Spark's RDD.pipe (docs/scaling.md).\n"
      "When records carry a \"label\", an evaluation summary goes to stderr at the end.\n"
      "An mbox gives one {\"message_id\", \"from\", \"date\", \"subject\", \"prediction\"}\n"
      "per message (a .eml file or a Maildir's message also \"path\" first); the model sees the\n"
      "subject and text part, quotes and signature cut.\n"
      "Exit codes: 0 ok, 2 usage (e.g. -o is the input), 3 bad input with --on-error fail\n"
      "(file:line named, no output file written), 4 bad model, 5 cannot write, 6 some records\n"
      "could not be labelled (written with \"error\", or skipped).\n");
  // -v / -q work after the subcommand too (`router batch in.jsonl -v`): the top level takes them.
  cmd->fallthrough();
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
