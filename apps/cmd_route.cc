// `router route SOURCE... --to ROOT [--move]`: files each message into ROOT/<label>/, a Maildir
// per label (docs/mail-flow.md). Sources: .eml files, mbox files, Maildirs or folders of
// messages, and '-' (one message or an mbox on stdin). Messages are copied, or with --move their
// files are moved (an mbox is never changed). Interrupted at any point, no message is lost, and a
// move within one file system never leaves a message in two places (input/maildir.h). A message
// that cannot be classified stays where it was.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "base/errors.h"
#include "base/files.h"
#include "base/parallel.h"
#include "base/signals.h"
#include "common.h"
#include "input/mail.h"
#include "input/maildir.h"

namespace router::app {

namespace {

// Messages read and classified together: both cores busy, little memory.
constexpr size_t kChunk = 64;

struct RouteOptions {
  std::vector<std::string> sources;
  std::string root;
  std::string model;
  bool move = false;
  int threads = 0;
  double min_confidence = -1;  // < 0: off
  bool no_header_rules = false;
};

struct Message {
  std::string where;  // for messages: the file, or "mbox: message N (line L)"
  std::string file;   // the message's own file (.eml, Maildir), "" for mbox and stdin
  std::string raw;
  std::string label;  // the folder's label, "" when it could not be classified
  float confidence = 0;
  std::string error;
};

// One source: a message file, or a stream of messages (an mbox, or stdin).
struct Source {
  std::string path;
  bool mbox = false;
};

// Every source, folders expanded into their message files; checked before any message moves.
std::vector<Source> expand(const RouteOptions& o) {
  std::vector<Source> out;
  for (const auto& path : o.sources) {
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) != 0) throw IoError(path + ": no such file");
    if (path != "-" && S_ISDIR(st.st_mode)) {
      for (auto& f : folder_messages(path)) out.push_back({std::move(f), false});
      continue;
    }
    const bool mbox = file_is_mbox(path);
    if (o.move && (mbox || path == "-")) {
      throw UsageError(
          (path == "-" ? std::string("standard input") : path) +
          ": --move takes message files and Maildirs; an mbox or standard input can only be "
          "copied (leave out --move)");
    }
    out.push_back({path, mbox});
  }
  return out;
}

// Reads the sources' messages in order, up to kChunk at a time.
class Reader {
 public:
  explicit Reader(std::vector<Source> sources) : sources_(std::move(sources)) {}
  bool fill(std::vector<Message>& chunk) {
    while (chunk.size() < kChunk) {
      if (mbox_) {
        Message m;
        int64_t line = 0;
        if (mbox_->next(m.raw, line)) {
          m.where = mbox_->where();
          chunk.push_back(std::move(m));
          continue;
        }
        mbox_.reset();
      }
      if (next_ >= sources_.size()) return !chunk.empty();
      const Source& s = sources_[next_++];
      if (s.mbox) {
        mbox_.emplace(s.path);
        continue;
      }
      Message m;
      m.where = s.path == "-" ? "standard input" : s.path;
      m.file = s.path == "-" ? "" : s.path;
      try {
        m.raw = s.path == "-" ? std::string(std::istreambuf_iterator<char>(std::cin), {})
                              : read_file(s.path);
      } catch (const IoError& e) {
        m.error = e.what();
      }
      chunk.push_back(std::move(m));
    }
    return true;
  }

 private:
  std::vector<Source> sources_;
  size_t next_ = 0;
  std::optional<MboxReader> mbox_;
};

void classify(const Model& model, const RouteOptions& o, Message& m) {
  if (!m.error.empty()) return;
  try {
    const MailText mail = parse_message(m.raw, m.where);
    const Prediction p = label_message(model, mail, !o.no_header_rules, m.where);
    m.label = shown_label(model, p, o.min_confidence);
    m.confidence = p.confidence;
  } catch (const Error& e) {
    m.error = e.what();
  }
}

// Creates the root folder if needed, and fails now, before any message moves, if it cannot be
// written.
void prepare_root(const std::string& root) {
  std::error_code error;
  std::filesystem::create_directories(root, error);
  if (error) throw IoError("cannot create " + root + ": " + error.message());
  if (::access(root.c_str(), W_OK | X_OK) != 0) {
    throw IoError("cannot write into " + root + ": " + std::strerror(errno));
  }
}

void run(const RouteOptions& o) {
  const std::vector<Source> sources = expand(o);
  const Model model = load_model_or_default(o.model);
  prepare_root(o.root);
  Reader reader(sources);
  std::map<std::string, std::unique_ptr<Maildir>> folders;
  std::map<std::string, int64_t> counts;
  int64_t routed = 0, left = 0;
  std::vector<Message> chunk;
  for (;;) {
    chunk.clear();
    if (!reader.fill(chunk)) break;
    parallel_for(static_cast<int>(chunk.size()), o.threads,
                 [&](int i) { classify(model, o, chunk[i]); });
    for (Message& m : chunk) {
      check_interrupted();  // between messages: each one is delivered whole or not at all
      if (!m.error.empty()) {
        spdlog::error("left in place: {}", m.error);
        ++left;
        continue;
      }
      auto& folder = folders[m.label];
      if (!folder) folder = std::make_unique<Maildir>(o.root + "/" + folder_name(m.label));
      const std::string to = o.move && !m.file.empty()
                                 ? folder->move_in(m.file)
                                 : folder->deliver(m.raw, maildir_flags(m.file));
      std::printf("%s\t%s\t%s\t%s\n", m.label.c_str(), format_fixed(m.confidence, 4).c_str(),
                  to.c_str(), m.where.c_str());
      ++counts[m.label];
      ++routed;
    }
    std::fflush(stdout);
  }
  std::string summary;
  for (const auto& [label, n] : counts) summary += " " + label + " " + std::to_string(n) + ",";
  if (!summary.empty()) summary.back() = ')';
  spdlog::info("{} {} message(s) into {}{}", o.move ? "moved" : "copied", routed, o.root,
               summary.empty() ? "" : " (" + summary.substr(1));
  if (left > 0) {
    throw Error(ExitCode::kSkipped, std::to_string(left) +
                                        " message(s) could not be classified and were left "
                                        "where they were; routed the other " +
                                        std::to_string(routed));
  }
}

}  // namespace

void add_route_command(CLI::App& app) {
  auto o = std::make_shared<RouteOptions>();
  auto* cmd = app.add_subcommand("route", "File each message into ROOT/<label>/, a Maildir");
  cmd->add_option("source", o->sources,
                  "Messages: .eml files, mbox files, Maildirs or folders of messages ('-': a "
                  "message or an mbox on stdin)")
      ->required();
  cmd->add_option("--to", o->root, "The root folder: each label gets a Maildir under it")
      ->required();
  cmd->add_flag("--move", o->move,
                "Move message files instead of copying them (an mbox is never changed)");
  add_model_option(*cmd, o->model);
  add_header_rules_option(*cmd, o->no_header_rules);
  add_min_confidence_option(*cmd, o->min_confidence,
                            "File predictions less confident than this under needs_review/");
  add_threads_option(*cmd, o->threads);
  cmd->footer(
      "Prints one line per message: label, confidence, where it now is, where it came from\n"
      "(tab-separated). Each message is written to ROOT/<label>/tmp/, synced, then renamed\n"
      "into new/ (a Maildir message keeps its name, and its flags in cur/); a move within one\n"
      "file system is one rename. Interrupted at any point, no message is lost or half\n"
      "written, and a move never leaves a message in two places. A message that cannot be\n"
      "classified stays where it was (exit 6). Exit codes: 0 ok, 2 usage, 5 cannot write,\n"
      "6 some messages left in place, 130 interrupted (the messages so far are filed).\n");
  cmd->fallthrough();
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
