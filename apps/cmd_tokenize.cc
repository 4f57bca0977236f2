// `router tokenize`: the token ids the model sees for each record's "text", one JSON line per
// record, in input order. The ids are exactly those `batch` and `classify` feed the encoder
// (normalised, pre-tokenised, SentencePiece pieces, cut to max_len), so another implementation
// of the model can be run on the same input (bench/torch_batch.py does). Streamed: memory stays
// flat for any number of JSON Lines records.
#include <string>
#include <vector>

#include "base/errors.h"
#include "base/files.h"
#include "base/signals.h"
#include "common.h"
#include "input/dataset.h"

namespace router::app {

namespace {

struct TokenizeOptions {
  std::string input;
  std::string output = "-";
  std::string model;
  bool pieces = false;
};

void run(const TokenizeOptions& o) {
  check_not_input(o.input, o.output);
  check_writable(o.output);
  const Model model = load_model_or_default(o.model);
  RecordReader reader(o.input);
  OutputFile out(o.output);
  std::string line;
  Record r;
  while (reader.next(r)) {
    check_interrupted();
    const std::string& text = text_field(r);
    bool truncated = false;
    std::vector<int32_t> ids;
    try {
      ids = model.encode(text, &truncated);
    } catch (const InputError&) {
      throw InputError(r.where + ": \"text\" is empty (nothing but white space)");
    }
    line = "{\"ids\":[";
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) line += ',';
      line += std::to_string(ids[i]);
    }
    line += ']';
    if (o.pieces) {
      nlohmann::json p = nlohmann::json::array();
      for (int32_t id : ids) p.push_back(model.tokenizer().vocab()[id]);
      line += ",\"pieces\":" + p.dump();
    }
    if (truncated) line += ",\"truncated\":true";
    line += "}\n";
    out.write(line);
  }
  out.commit();
}

}  // namespace

void add_tokenize_command(CLI::App& app) {
  auto o = std::make_shared<TokenizeOptions>();
  auto* cmd = app.add_subcommand(
      "tokenize", "Print the token ids the model sees for each record (one JSON line each)");
  cmd->add_option("input", o->input,
                  "JSON Lines or a JSON array of objects, each with a string \"text\" ('-': stdin)")
      ->required();
  cmd->add_option("-o,--output", o->output,
                  "Where to write (default '-': stdout); written whole or not at all")
      ->capture_default_str();
  add_model_option(*cmd, o->model);
  cmd->add_flag("--pieces", o->pieces, "Also print the subword pieces (\"pieces\": [...])");
  cmd->footer(
      "One line per input record, in input order: {\"ids\":[12,407,9,...]}, the ids the\n"
      "encoder receives (the model's tokenizer, cut to its max_len tokens; a cut record also\n"
      "gets \"truncated\":true). A record without a string \"text\", or whose text has no\n"
      "tokens, is an input error (exit code 3) naming the file and line.\n");
  cmd->fallthrough();
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
