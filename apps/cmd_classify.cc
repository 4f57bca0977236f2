// `router classify`: one label per email, from arguments, a file, stdin, or one email per line.
// A real message (.eml) is parsed first (lib/input/mail.h) and the model sees its subject and text.
#include <cstdio>

#include <sys/stat.h>
#include <unistd.h>
#include <iostream>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "base/files.h"
#include "base/parallel.h"
#include "common.h"
#include "input/mail.h"

namespace router::app {

namespace {

struct ClassifyOptions {
  std::vector<std::string> texts;
  std::vector<std::string> files;
  bool lines = false;
  std::string model;
  int k = 0;
  bool json = false;
  int threads = 0;
  double min_confidence = -1;   // < 0: off
  std::string format = "auto";  // auto | text | eml
  bool show_text = false;
  bool no_header_rules = false;
};

// Every line of `text` on stderr, prefixed so that it is never taken for a result.
void show_text(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "router: text: " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  std::fputs(out.c_str(), stderr);
}

std::string read_input(const std::string& file) {
  if (file == "-") {
    std::string all((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (std::cin.bad()) throw IoError("cannot read standard input");
    return all;
  }
  return read_file(file);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r\f\v") != std::string::npos) out.push_back(std::move(line));
    start = end + 1;
  }
  return out;
}

// One email's result line: LABEL<TAB>CONFIDENCE, the k best pairs with -k, or JSON.
std::string result_line(const Model& model, const ClassifyOptions& o, const Prediction& p) {
  std::string out;
  const bool review = needs_review(p, o.min_confidence);
  if (o.json) {
    out = prediction_text(model, p, o.k > 0 ? o.k : static_cast<int>(p.probs.size()),
                          review ? kNeedsReview : "");
  } else if (o.k > 0) {
    const auto top = top_k(p, o.k);
    for (size_t j = 0; j < top.size(); ++j) {
      out += (j ? "\t" : "") + model.labels()[top[j]] + "\t" + format_fixed(p.probs[top[j]], 4);
    }
  } else {
    out = shown_label(model, p, o.min_confidence) + "\t" + format_fixed(p.confidence, 4);
  }
  return out + '\n';
}

// One warning for all the emails that were cut, as batch gives.
void warn_truncated(const Model& model, int truncated) {
  if (truncated > 0) {
    spdlog::warn("{} email(s) longer than max_len = {} tokens: only the first {} were used",
                 truncated, model.config().max_len, model.config().max_len);
  }
}

// --lines from a pipe or a terminal: each line is answered as soon as it is read, so a
// co-process gets one line back per line it writes.
void stream_lines(const Model& model, const ClassifyOptions& o) {
  std::string line;
  int64_t n = 0;
  int truncated = 0;
  while (std::getline(std::cin, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r\f\v") == std::string::npos) continue;
    if (o.show_text) show_text(line);
    const Email email{line, ""};
    Labelled l = std::move(label_emails(model, {&email, 1}, {true, 1}).front());
    if (l.problem != Problem::kNone) {
      throw InputError("stdin, line " + std::to_string(n) + ": no words to classify");
    }
    const Prediction& p = l.prediction;
    truncated += p.truncated;
    const std::string out = result_line(model, o, p);
    if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
      throw IoError("cannot write to standard output");
    }
  }
  if (std::cin.bad()) throw IoError("cannot read standard input");
  if (n == 0) throw InputError("stdin: no non-empty lines");
  warn_truncated(model, truncated);
}

// The emails to classify, in order: the arguments, then each -f file (or its lines with
// --lines), or stdin when neither is given; `wheres` names each for messages.
struct Emails {
  std::vector<std::string> texts, wheres;
  std::string source;  // what an error about all of them names: one file, stdin or "argument"
};

Emails gather(const ClassifyOptions& o) {
  Emails e;
  e.source = o.texts.empty() ? "stdin" : "argument";
  for (size_t i = 0; i < o.texts.size(); ++i) {
    const std::string& text = o.texts[i];
    struct stat st;
    if (text != "-" && ::stat(text.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      spdlog::warn(
          "argument {} names a file, but its words are what is classified; to read the "
          "file, use -f {}",
          i + 1, text);
    }
    e.texts.push_back(text == "-" ? read_input("-") : text);
    e.wheres.push_back(text == "-" ? "stdin" : "argument " + std::to_string(i + 1));
  }
  const std::vector<std::string> files =
      o.texts.empty() && o.files.empty() ? std::vector<std::string>{"-"} : o.files;
  for (const auto& file : files) {
    const std::string where = file == "-" ? "stdin" : file;
    std::string all = read_input(file);
    if (o.lines) {
      const auto lines = split_lines(all);
      if (lines.empty()) throw InputError(where + ": no non-empty lines");
      e.texts.insert(e.texts.end(), lines.begin(), lines.end());
      e.wheres.resize(e.texts.size(), where);
    } else {
      e.texts.push_back(std::move(all));
      e.wheres.push_back(where);
    }
  }
  if (files.size() == 1 && o.texts.empty()) e.source = e.wheres.front();
  return e;
}

// Every email's prediction, in order (label_emails); the first that cannot be labelled is named
// before any output.
std::vector<Prediction> predict_all(const Model& model, const ClassifyOptions& o, const Emails& e,
                                    const std::vector<MailText>& mails) {
  std::vector<Email> emails;
  for (size_t i = 0; i < e.texts.size(); ++i) emails.push_back({e.texts[i], mails[i].rule});
  std::vector<Labelled> labelled = label_emails(model, emails, {!o.no_header_rules, o.threads});
  std::vector<Prediction> preds;
  for (size_t i = 0; i < labelled.size(); ++i) {
    if (labelled[i].problem == Problem::kNoText) {
      throw InputError(e.wheres[i] + ": " + problem_text(Problem::kNoText, true));
    }
    if (labelled[i].problem == Problem::kNoWords) {
      throw InputError(e.source + ": email " + std::to_string(i + 1) +
                       " is empty (nothing but white space)");
    }
    preds.push_back(std::move(labelled[i].prediction));
  }
  return preds;
}

void run(const ClassifyOptions& o) {
  if (o.lines && o.format == "eml") throw UsageError("--format eml reads one message, not --lines");
  if (!o.texts.empty() && !o.files.empty()) {
    throw UsageError("give emails as arguments or with -f, not both");
  }
  const bool from_stdin =
      o.texts.empty() && (o.files.empty() || o.files == std::vector<std::string>{"-"});
  if (o.lines && from_stdin && stdin_is_a_stream()) {
    static const Model* streaming = nullptr;  // kept, as below
    streaming = new Model(load_model_or_default(o.model));
    return stream_lines(*streaming, o);
  }
  Emails e = gather(o);
  std::vector<MailText> mails(e.texts.size());
  if (!o.lines) {
    for (size_t i = 0; i < e.texts.size(); ++i) {
      mails[i] = email_text(std::move(e.texts[i]), e.wheres[i], o.format);
      e.texts[i] = mails[i].text;
    }
  }
  // Never freed (the process ends right after): freeing the vocabulary's and the weights' blocks
  // one by one costs about as much as classifying a short email. Held by a static so that leak
  // checkers see it as reachable.
  static const Model* kept = nullptr;
  kept = new Model(load_model_or_default(o.model));
  const Model& model = *kept;
  if (o.show_text) {
    for (const auto& email : e.texts) show_text(email);
  }
  std::string out;
  int truncated = 0;
  for (const Prediction& p : predict_all(model, o, e, mails)) {
    truncated += p.truncated;
    out += result_line(model, o, p);
  }
  std::cout << out << std::flush;
  warn_truncated(model, truncated);
}

}  // namespace

void add_classify_command(CLI::App& app) {
  auto opts = std::make_shared<ClassifyOptions>();
  auto* cmd = app.add_subcommand("classify", "Label emails: LABEL<TAB>CONFIDENCE per email");
  cmd->add_option("text", opts->texts, "Emails to classify, one per argument ('-': stdin)");
  cmd->add_option("-f,--file", opts->files,
                  "Read one email from FILE ('-' for stdin); repeat for several, one line each")
      ->allow_extra_args(false);
  cmd->add_flag("--lines", opts->lines, "Every non-empty line of the input is one email");
  add_model_option(*cmd, opts->model);
  add_top_k_option(*cmd, opts->k, "Print the K best labels with their scores");
  add_min_confidence_option(*cmd, opts->min_confidence,
                            "Print \"needs_review\" for predictions less confident than this (the "
                            "-k list keeps the model's labels)");
  cmd->add_flag("--json", opts->json, "One JSON object per email per line");
  add_threads_option(*cmd, opts->threads);
  cmd->add_option("--format", opts->format,
                  "auto: parse the input as an email message (.eml) if it starts with RFC 5322 "
                  "headers; text: always plain text; eml: always a message")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "text", "eml"}));
  add_header_rules_option(*cmd, opts->no_header_rules);
  cmd->add_flag("--show-text", opts->show_text,
                "Print what the model sees (subject and body, quotes and signature cut) to "
                "stderr, each line prefixed \"router: text: \"; stdout keeps one result per email");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
