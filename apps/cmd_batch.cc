// `router batch`: labels every record of a JSON Lines file or JSON array and writes the records
// back, each with a "prediction" appended, in input order. JSON Lines is streamed in fixed
// chunks, so memory stays flat for any input size. Every email is run through the model on its
// own, so a record's output depends on that record alone: identical for any --threads, any
// chunking, and under `parallel --pipe --keep-order` (docs/scaling.md). An mbox is read the same
// way, one message per record: {"message_id", "from", "date", "subject", "prediction"}.
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
#include "progress.h"

namespace router::app {

namespace {

using ojson = nlohmann::ordered_json;

// Records per chunk: enough to keep both cores busy, small enough that memory stays flat.
constexpr size_t kChunk = 1024;

struct BatchOptions {
  std::string input;
  std::string output = "-";
  std::string model;
  int k = 3;
  int threads = 0;
  double min_confidence = -1;       // < 0: off
  bool skip_invalid = false;        // the old spelling of --on-error skip
  std::string on_error = "record";  // record | skip | fail
  std::string format = "auto";      // auto | json | mbox
  bool no_header_rules = false;
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

// True if the input is an mbox: it starts with a "From " line (JSON never starts with 'F').
bool input_is_mbox(const std::string& path) {
  if (path == "-") return std::cin.peek() == 'F';
  std::ifstream in(path, std::ios::binary);
  char start[5] = {};
  in.read(start, sizeof start);
  return looks_like_mbox(std::string_view(start, static_cast<size_t>(in.gcount())));
}

// Messages of an mbox: the total for the progress bar's ETA ("From " lines).
int64_t count_messages(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  int64_t count = 0;
  while (std::getline(in, line)) count += looks_like_mbox(line);
  return count;
}

// Up to kChunk raw messages into `chunk`; the workers parse them (parse_mail). `count` numbers
// the messages for error messages.
void read_mail_chunk(MboxReader& reader, int64_t& count, std::vector<Slot>& chunk, bool& end) {
  while (chunk.size() < kChunk) {
    Slot s;
    int64_t line = 0;
    if (!reader.next(s.text, line)) {
      end = true;
      return;
    }
    s.mail = true;
    s.where = reader.name() + ": message " + std::to_string(++count) + " (line " +
              std::to_string(line) + ")";
    chunk.push_back(std::move(s));
  }
}

// The raw message in `s.text` -> its header fields in `s.value` and the model's text in `s.text`.
const std::string& parse_mail(Slot& s) {
  MailText m = parse_message(s.text, s.where);
  s.value = ojson{{"message_id", std::move(m.message_id)},
                  {"from", std::move(m.from)},
                  {"date", std::move(m.date)},
                  {"subject", std::move(m.subject)}};
  s.text = std::move(m.text);
  s.rule = std::move(m.rule);
  return s.text;
}

// The record's output line: its members in order, as dump() writes them, with the prediction's
// text in place (replacing an existing "prediction", or appended at the end).
void serialise(const Model& model, const BatchOptions& o, Slot& s) {
  const Prediction& p = s.prediction;
  const bool review = o.min_confidence >= 0 && p.confidence < o.min_confidence;
  const std::string pred = prediction_text(model, p, o.k, review ? "needs_review" : "");
  s.had_prediction = s.value.contains("prediction");
  if (!s.had_prediction) s.value["prediction"] = nullptr;
  s.out = "{";
  for (auto it = s.value.begin(); it != s.value.end(); ++it) {
    if (it != s.value.begin()) s.out += ',';
    s.out += ojson(it.key()).dump() + ':' + (it.key() == "prediction" ? pred : it.value().dump());
  }
  s.out += '}';
}

// Validates, labels and serialises one record. Runs on any worker; touches only `s`.
void label_record(const Model& model, const BatchOptions& o, Slot& s) {
  if (!s.error.empty()) return;
  std::vector<int32_t> ids;
  bool truncated = false;
  try {
    const std::string* text = nullptr;
    if (s.mail) {
      text = &parse_mail(s);
      if (!s.rule.empty()) {
        MailText m;
        m.text = *text;
        m.rule = s.rule;
        if (auto ruled = mail_rule_prediction(model, m, !o.no_header_rules, s.where)) {
          s.prediction = std::move(*ruled);
          serialise(model, o, s);
          return;
        }
      }
    } else {
      auto it = s.value.find("text");
      if (it == s.value.end()) throw InputError(s.where + ": missing \"text\"");
      if (!it->is_string()) throw InputError(s.where + ": \"text\" is not a string");
      text = &it->get_ref<const std::string&>();
    }
    try {
      ids = model.encode(*text, &truncated);
    } catch (const InputError&) {
      throw InputError(s.where + (s.mail ? ": the message has no words to classify"
                                         : ": \"text\" is empty (nothing but white space)"));
    }
  } catch (const InputError& e) {
    s.error = e.what();
    return;
  }
  // One email per forward pass: batching with neighbours would let padding and matrix sizes
  // change the last bits of the logits, and then the output would depend on the chunking.
  const Mat<float> logits = model.logits({&ids});
  Prediction& p = s.prediction;
  p = model.finish(logits.row(0));
  p.n_tokens = static_cast<int>(ids.size());
  p.truncated = truncated;

  serialise(model, o, s);
}

// The output line of a record that could not be labelled: the record as read (for a message, its
// header fields), or {} when it could not be read, with "error" saying why.
std::string error_record(const Slot& s) {
  ojson value = s.value.is_object() ? s.value : ojson::object();
  value.erase("prediction");
  value["error"] = s.error;
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The "pair" id of a record: a string as is, any other value as its JSON text, "" if none.
std::string pair_id(const ojson& value) {
  auto it = value.find("pair");
  if (it == value.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

void run(BatchOptions o) {
  if (o.skip_invalid) o.on_error = "skip";
  check_not_input(o.input, o.output);
  check_writable(o.output);
  const Model model = load_model_or_default(o.model);
  const bool mbox = o.format == "mbox" || (o.format == "auto" && input_is_mbox(o.input));
  std::optional<RecordReader> reader;
  std::optional<MboxReader> mail_reader;
  if (mbox) {
    mail_reader.emplace(o.input);
  } else {
    reader.emplace(o.input);
  }
  const bool array = reader && reader->format() == DataFormat::kJsonArray;
  const std::optional<double> threshold =
      o.min_confidence >= 0 ? std::optional<double>(o.min_confidence) : std::nullopt;
  // Top-k accuracy only when it says something: with k >= K it is 1 by definition.
  const int K = static_cast<int>(model.labels().size());
  MetricsAccumulator metrics(model.labels(), threshold, o.k < K ? o.k : 0);

  int64_t total = 0;
  if (!array && regular_file(o.input) && progress_shown()) {
    total = mbox ? count_messages(o.input) : count_records(o.input);
  }
  ProgressBar bar("  batch");
  const auto start = std::chrono::steady_clock::now();

  OutputFile out(o.output);
  if (array) out.write("[");
  std::vector<Slot> chunk;
  int64_t done = 0, skipped = 0, truncated = 0, unlabelled = 0, messages = 0;
  bool warned_prediction = false, first = true, end = false;
  std::string buffer;
  while (!end) {
    check_interrupted();
    chunk.clear();
    if (mbox) read_mail_chunk(*mail_reader, messages, chunk, end);
    while (!mbox && chunk.size() < kChunk) {
      Slot s;
      Record r;
      try {
        if (!reader->next(r)) {
          end = true;
          break;
        }
        s.value = std::move(r.value);
        s.where = std::move(r.where);
      } catch (const InputError& e) {
        s.error = e.what();
        // With --on-error fail this record ends the run; the records before it in this chunk
        // are still labelled and written first, so the error reported is the first in the file.
        if (o.on_error == "fail") end = true;
      }
      chunk.push_back(std::move(s));
      if (end) break;
    }
    parallel_for(static_cast<int>(chunk.size()), o.threads,
                 [&](int i) { label_record(model, o, chunk[i]); });

    buffer.clear();
    for (Slot& s : chunk) {
      if (!s.error.empty()) {
        if (o.on_error == "fail") {
          out.write(buffer);  // what came before stays written (on stdout; a file stays absent)
          throw InputError(s.error);
        }
        // At error level so that -q (errors only) still shows what was not labelled.
        spdlog::error("{} {}", o.on_error == "skip" ? "skipped" : "not labelled:", s.error);
        ++skipped;
        if (o.on_error == "skip") continue;
        buffer += array ? (first ? "\n" : ",\n") : "";
        buffer += error_record(s);
        if (!array) buffer += '\n';
        first = false;
        continue;
      }
      if (s.had_prediction && !warned_prediction) {
        spdlog::warn(
            "{}: the record already has a \"prediction\"; it is replaced (and so in "
            "every other record that has one)",
            s.where);
        warned_prediction = true;
      }
      truncated += s.prediction.truncated;
      buffer += array ? (first ? "\n" : ",\n") : "";
      buffer += s.out;
      if (!array) buffer += '\n';
      first = false;
      ++done;
      auto label = s.value.find("label");
      if (label != s.value.end() && label->is_string()) {
        const auto& truth = label->get_ref<const std::string&>();
        const int t = metrics.index_of(truth);
        metrics.add(truth, s.prediction.label, s.prediction.confidence, pair_id(s.value),
                    t >= 0 ? rank_of(s.prediction.probs, t) : -1);
      } else {
        ++unlabelled;
      }
    }
    out.write(buffer);
    bar.update(done + skipped, total);
  }
  if (array) out.write(first ? "]\n" : "\n]\n");
  out.commit();
  bar.clear();

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (truncated > 0) {
    spdlog::info("{} email(s) longer than max_len = {} tokens: only the first {} were used",
                 truncated, model.config().max_len, model.config().max_len);
  }
  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::info("{} records in {:.2f}s: {:.0f} emails/s", done, seconds,
                 seconds > 0 ? done / seconds : 0.0);
  }
  // The summary is a report, not a log line, but -q still silences it.
  if (metrics.records() > 0 && spdlog::should_log(spdlog::level::info)) {
    const Evaluation e = metrics.finish();
    std::string report =
        "evaluation of the " + std::to_string(metrics.records()) + " labelled records";
    if (unlabelled > 0) report += " (" + std::to_string(unlabelled) + " without a label)";
    report +=
        ":\n" + (e.n > 0 ? evaluation_text(e) : std::string("no label is known to the model\n"));
    std::fputs(report.c_str(), stderr);
  }
  if (skipped > 0) {
    throw Error(ExitCode::kSkipped,
                std::to_string(skipped) + " record(s) could not be labelled (" +
                    (o.on_error == "skip" ? "skipped" : "written with an \"error\" field") +
                    "); labelled the other " + std::to_string(done));
  }
}

}  // namespace

void add_batch_command(CLI::App& app) {
  auto o = std::make_shared<BatchOptions>();
  auto* cmd = app.add_subcommand(
      "batch", "Label every record of a JSON Lines file or JSON array; writes the same form");
  cmd->add_option("input", o->input,
                  "JSON Lines or a JSON array of objects, each with a string \"text\" ('-': stdin)")
      ->required();
  cmd->add_option("-o,--output", o->output,
                  "Where to write the records (default '-': stdout); written whole or not at all")
      ->capture_default_str();
  add_model_option(*cmd, o->model);
  add_header_rules_option(*cmd, o->no_header_rules);
  cmd->add_option("--format", o->format,
                  "auto: an mbox if the input starts with a \"From \" line, else JSON; json: JSON "
                  "Lines or array; mbox: a mailbox, one output record per message")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "json", "mbox"}));
  cmd->add_option("-k,--top-k", o->k, "Labels listed in each prediction's top_k")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--min-confidence", o->min_confidence,
                  "Label predictions less confident than this \"needs_review\"")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--on-error", o->on_error,
                  "A record or message that cannot be labelled: record (write it with an "
                  "\"error\" field instead of a prediction), skip (leave it out), or fail (stop "
                  "there, exit 3); record and skip report each on stderr and exit 6 at the end")
      ->capture_default_str()
      ->check(CLI::IsMember({"record", "skip", "fail"}));
  cmd->add_flag("--skip-invalid", o->skip_invalid, "The same as --on-error skip");
  cmd->add_option("--threads", o->threads, "Threads (0 = all cores); never changes the output")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->footer(
      "Each output record is the input record, fields untouched and in order, with\n"
      "\"prediction\": {\"label\", \"confidence\", \"top_k\": [{\"label\", \"score\"}, ...]}\n"
      "at the end (an existing \"prediction\" is replaced in place). JSON Lines is streamed:\n"
      "one record in, one out, order kept, so router runs unchanged under\n"
      "`parallel --pipe --keep-order`, Hadoop Streaming or Spark's RDD.pipe (docs/scaling.md).\n"
      "When records carry a \"label\", an evaluation summary goes to stderr at the end.\n"
      "An mbox gives one {\"message_id\", \"from\", \"date\", \"subject\", \"prediction\"}\n"
      "per message; the model sees the subject and text part, quotes and signature cut.\n"
      "Exit codes: 0 ok, 2 usage (e.g. -o is the input), 3 bad input with --on-error fail\n"
      "(file:line named, no output file written), 4 bad model, 5 cannot write, 6 some records\n"
      "could not be labelled (written with \"error\", or skipped).\n");
  // -v / -q work after the subcommand too (`router batch in.jsonl -v`): the top level takes them.
  cmd->fallthrough();
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
