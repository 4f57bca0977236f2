// `router explain`: what the model saw and where it looked. Prints the tokens, the prediction,
// per-token importance (gradient x input) and every head's attention map; --json for machines,
// --html for a self-contained page, --compare for two emails side by side. Model logic lives in
// lib/analysis/explain.h, pictures in lib/analysis/render_html.h; this file parses and prints.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>

#include "analysis/explain.h"
#include "analysis/render_html.h"
#include "base/errors.h"
#include "base/files.h"
#include "common.h"

namespace router::app {

namespace {

constexpr const char* kSwapA = "Refund the delivery fee, not the cake.";
constexpr const char* kSwapB = "Refund the cake, not the delivery fee.";

struct ExplainOptions {
  std::vector<std::string> texts;
  std::string file, model, html;
  int top_k = 3, links = 3, words = 5, heads = 3;
  bool json = false, shade = false, plain = false, compare = false;
  bool gradient = false, attention = false;
};

// Display width of UTF-8 text in terminal cells (one per code point).
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(std::string s, size_t w) {
  const size_t n = width(s);
  if (n < w) s.append(w - n, ' ');
  return s;
}

// At most `w` code points, with "~" marking a cut.
std::string clip(const std::string& s, size_t w) {
  if (width(s) <= w) return s;
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if ((c & 0xC0) != 0x80 && ++n > w - 1) break;
    out += s[i];
  }
  return out + "~";
}

std::string repeat(const std::string& unit, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += unit;
  return s;
}

struct Style {
  bool shade = false;  // Unicode shading and ANSI colour
  std::string red(const std::string& s) const { return shade ? "\x1b[31m" + s + "\x1b[0m" : s; }
  std::string blue(const std::string& s) const { return shade ? "\x1b[34m" + s + "\x1b[0m" : s; }
};

std::string shade_cell(double v) {
  static const char* kShades[] = {"  ", "\u2591\u2591", "\u2592\u2592", "\u2593\u2593",
                                  "\u2588\u2588"};
  const int k = v < 0.05 ? 0 : v < 0.25 ? 1 : v < 0.5 ? 2 : v < 0.75 ? 3 : 4;
  return kShades[k];
}

std::vector<std::string> display_tokens(const Explanation& e) {
  std::vector<std::string> out;
  for (const auto& t : e.tokens) out.push_back(display_token(t));
  return out;
}

// One attention map as lines: row label "i token", then one cell per key (index in the header).
std::vector<std::string> map_lines(const Mat<float>& a, const std::vector<std::string>& tokens,
                                   const Style& st) {
  const int T = static_cast<int>(tokens.size());
  const size_t label_w = 14;
  const int cell_w = st.shade ? 2 : 5;
  // Shading is scaled to the map's largest weight, so near-uniform heads still show structure.
  const double vmax = std::max(static_cast<double>(a.maxCoeff()), 1e-9);
  std::vector<std::string> lines;
  std::string head = pad("", label_w);
  for (int j = 0; j < T; ++j) {
    std::string idx = std::to_string(j);
    head += st.shade ? pad(idx.size() > 2 ? idx.substr(idx.size() - 2) : idx, cell_w)
                     : std::string(idx.size() < 4 ? 4 - idx.size() : 0, ' ') + idx + " ";
  }
  lines.push_back(head);
  for (int i = 0; i < T; ++i) {
    std::string row = pad(pad(std::to_string(i), 3) + clip(tokens[i], 10), label_w);
    for (int j = 0; j < T; ++j)
      row += st.shade ? shade_cell(a(i, j) / vmax) : format_fixed(a(i, j), 2) + " ";
    lines.push_back(row);
  }
  for (auto& line : lines) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
  }
  return lines;
}

std::string links_line(const Explanation& e, int l, int h, int k) {
  const std::vector<std::string> tok = display_tokens(e);
  std::string s;
  for (const Link& lk : top_links(e.attention[l][h], k)) {
    s += (s.empty() ? "" : ", ") + std::string("'") + tok[lk.from] + "'[" +
         std::to_string(lk.from) + "] -> '" + tok[lk.to] + "'[" + std::to_string(lk.to) + "] " +
         format_fixed(lk.weight, 2);
  }
  return s.empty() ? "(one token: no links)" : s;
}

std::string bar(double v, const Style& st) {
  const int n = static_cast<int>(std::lround(std::abs(v) * 40));
  if (st.shade) return v >= 0 ? st.red(repeat("\u2588", n)) : st.blue(repeat("\u2588", n));
  return std::string(static_cast<size_t>(n), v >= 0 ? '+' : '-');
}

std::string signed_fixed(double v) { return (v >= 0 ? "+" : "") + format_fixed(v, 3); }

void print_prediction(const Model& m, const Explanation& e, int k) {
  const Prediction& p = e.prediction;
  std::printf("prediction: %s %s\n  top %d:", m.labels()[p.label].c_str(),
              format_fixed(p.confidence, 4).c_str(), k);
  const char* sep = " ";
  for (int i : top_k(p, k)) {
    std::printf("%s%s %s", sep, m.labels()[i].c_str(), format_fixed(p.probs[i], 4).c_str());
    sep = ", ";
  }
  std::printf("\n");
}

void print_words(const Model& m, const Explanation& e, const std::vector<WordEffect>& effects,
                 int n);
void print_heads(const Model& m, const Explanation& e, int n);
void print_gradient(const Model& m, const Explanation& e, const std::vector<std::string>& tok,
                    const Style& st);
void print_attention(const Explanation& e, const std::vector<std::string>& tok,
                     const ExplainOptions& o, const Style& st);

void print_one(const Model& m, const Explanation& e, const std::string& text,
               const std::vector<WordEffect>& words, const ExplainOptions& o, const Style& st) {
  std::printf("email: %s\n", text.c_str());
  std::printf("tokens (%zu%s, as the model sees them):\n", e.tokens.size(),
              e.truncated ? ", cut to max_len" : "");
  std::printf("  pos     id  piece\n");
  for (size_t t = 0; t < e.tokens.size(); ++t) {
    std::printf("  %3zu  %5d  %s\n", t, e.ids[t], e.tokens[t].c_str());
  }
  std::printf("\n");
  print_prediction(m, e, o.top_k);
  print_words(m, e, words, o.words);
  print_heads(m, e, o.heads);
  const std::vector<std::string> tok = display_tokens(e);
  if (o.gradient) print_gradient(m, e, tok, st);
  if (o.attention) {
    if (e.members > 1) std::printf("\n(the attention of the first of %d members)", e.members);
    print_attention(e, tok, o, st);
  }
  if (!o.gradient || !o.attention) {
    std::printf("\n(%s%s%s: router explain --help)\n",
                o.gradient ? "" : "--gradient for each token's gradient x input",
                o.gradient || o.attention ? "" : ", ",
                o.attention ? "" : "--attention for every head's attention map");
  }
}

// The words whose removal moves the prediction most, as a sentence a reader can check.
void print_words(const Model& m, const Explanation& e, const std::vector<WordEffect>& effects,
                 int n) {
  const int label = e.prediction.label;
  if (effects.empty()) return;
  std::printf("\nwords that matter (each left out in turn, the rest read again):\n");
  for (size_t i = 0; i < effects.size() && static_cast<int>(i) < n; ++i) {
    const WordEffect& w = effects[i];
    std::string line = "  without \"" + clip(w.word, 24) + "\", " + m.labels()[label] + " " +
                       change_words(e.prediction.confidence, w.without);
    if (w.label_without != label) line += "; the label becomes " + m.labels()[w.label_without];
    std::printf("%s\n", line.c_str());
  }
}

// The heads whose absence moves the prediction most, in the same words as print_words.
void print_heads(const Model& m, const Explanation& e, int n) {
  const int label = e.prediction.label;
  if (e.heads.empty() || n <= 0) return;
  const std::string whose =
      e.members > 1 ? "; the heads of the first of " + std::to_string(e.members) + " members" : "";
  std::printf("\nheads that matter (each switched off in turn, the email read again%s):\n",
              whose.c_str());
  for (size_t i = 0; i < e.heads.size() && static_cast<int>(i) < n; ++i) {
    const HeadEffect& h = e.heads[i];
    std::string line = "  without head " + std::to_string(h.layer) + "." + std::to_string(h.head) +
                       ", " + m.labels()[label] + " " +
                       change_words(e.prediction.confidence, h.without);
    if (h.label_without != label) line += "; the label becomes " + m.labels()[h.label_without];
    std::printf("%s\n", line.c_str());
  }
}

void print_gradient(const Model& m, const Explanation& e, const std::vector<std::string>& tok,
                    const Style& st) {
  std::printf("\nimportance for '%s' (gradient x input, |scores| sum to 1):\n",
              m.labels()[e.prediction.label].c_str());
  for (size_t t = 0; t < tok.size(); ++t) {
    const std::string b = bar(e.importance[t], st);
    std::printf("  %s %s%s%s\n", pad(pad(std::to_string(t), 3) + clip(tok[t], 10), 14).c_str(),
                signed_fixed(e.importance[t]).c_str(), b.empty() ? "" : "  ", b.c_str());
  }
}

void print_attention(const Explanation& e, const std::vector<std::string>& tok,
                     const ExplainOptions& o, const Style& st) {
  std::printf(
      "\nattention (row: the token that looks, column: the token looked at, by index;\n"
      "each row sums to 1; heads are numbered layer.head from 0)\n");
  for (size_t l = 0; l < e.attention.size(); ++l) {
    for (size_t h = 0; h < e.attention[l].size(); ++h) {
      std::printf("\nhead %zu.%zu  (mean entropy %s nats)\n", l, h,
                  format_fixed(mean_entropy(e.attention[l][h]), 2).c_str());
      for (const auto& line : map_lines(e.attention[l][h], tok, st)) {
        std::printf("%s\n", line.c_str());
      }
      std::printf("head %zu.%zu: %s\n", l, h,
                  links_line(e, static_cast<int>(l), static_cast<int>(h), o.links).c_str());
    }
  }
}

void print_compare(const Model& m, const Explanation& a, const Explanation& b,
                   const std::string& ta, const std::string& tb, const ExplainOptions& o,
                   const Style& st) {
  std::printf("A  %s\nB  %s\n\n", ta.c_str(), tb.c_str());
  auto cell = [&](const Explanation& e) {
    return m.labels()[e.prediction.label] + " " + format_fixed(e.prediction.confidence, 4);
  };
  std::printf("   %s  %s\n", pad("A", 44).c_str(), "B");
  std::printf("   %s  %s\n", pad(cell(a), 44).c_str(), cell(b).c_str());
  std::printf(
      "\nimportance (gradient x input of each email's predicted label, |scores| sum to 1):\n");
  const std::vector<std::string> tka = display_tokens(a), tkb = display_tokens(b);
  auto side = [&](const Explanation& e, const std::vector<std::string>& tk, size_t t) {
    if (t >= tk.size()) return pad("", 44);
    const int n = static_cast<int>(std::lround(std::abs(e.importance[t]) * 40));
    const std::string text = pad(clip(tk[t], 10), 11) + signed_fixed(e.importance[t]) + " ";
    const int used = static_cast<int>(width(text)) + n;
    return text + bar(e.importance[t], st) +
           std::string(static_cast<size_t>(std::max(0, 44 - used)), ' ');
  };
  for (size_t t = 0; t < std::max(tka.size(), tkb.size()); ++t) {
    std::printf("   %s  %s\n", side(a, tka, t).c_str(), side(b, tkb, t).c_str());
  }
  std::printf(
      "\nattention, head by head (A left, B right; row looks at column; mean entropy in nats)\n");
  for (size_t l = 0; l < a.attention.size(); ++l) {
    for (size_t h = 0; h < a.attention[l].size(); ++h) {
      const auto la = map_lines(a.attention[l][h], tka, st),
                 lb = map_lines(b.attention[l][h], tkb, st);
      size_t wa = 0;
      for (const auto& s : la) wa = std::max(wa, width(s));
      std::printf("\nhead %zu.%zu  entropy A %s, B %s\n", l, h,
                  format_fixed(mean_entropy(a.attention[l][h]), 2).c_str(),
                  format_fixed(mean_entropy(b.attention[l][h]), 2).c_str());
      for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
        std::printf("%s  %s\n", pad(i < la.size() ? la[i] : "", wa).c_str(),
                    i < lb.size() ? lb[i].c_str() : "");
      }
      const int li = static_cast<int>(l), hi = static_cast<int>(h);
      std::printf("  A: %s\n  B: %s\n", links_line(a, li, hi, o.links).c_str(),
                  links_line(b, li, hi, o.links).c_str());
    }
  }
}

nlohmann::json explanation_json(const Model& m, const Explanation& e, int k) {
  nlohmann::json attention = nlohmann::json::array();
  for (const auto& layer : e.attention) {
    nlohmann::json heads = nlohmann::json::array();
    for (const Mat<float>& a : layer) {
      std::vector<std::vector<double>> rows(a.rows(), std::vector<double>(a.cols()));
      for (int i = 0; i < a.rows(); ++i) {
        for (int j = 0; j < a.cols(); ++j) rows[i][j] = float_value(a(i, j));
      }
      heads.push_back(rows);
    }
    attention.push_back(heads);
  }
  nlohmann::json heads = nlohmann::json::array();
  for (const HeadEffect& h : e.heads) {
    heads.push_back({{"layer", h.layer},
                     {"head", h.head},
                     {"without", float_value(h.without)},
                     {"label_without", m.labels()[h.label_without]}});
  }
  return {{"tokens", e.tokens},
          {"ids", e.ids},
          {"truncated", e.truncated},
          {"attention", attention},
          {"importance", e.importance},
          {"importance_method", "gradient_x_input"},
          {"heads", heads},
          {"prediction", prediction_json(m, e.prediction, k)}};
}

// What the model sees of a file: a message (.eml) is parsed exactly as classify parses it.
std::string read_text(const std::string& file) {
  std::string raw = file == "-" ? std::string(std::istreambuf_iterator<char>(std::cin),
                                              std::istreambuf_iterator<char>())
                                : read_file(file);
  return email_text(std::move(raw), file == "-" ? "stdin" : file).text;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string::npos; }

void run(const ExplainOptions& o) {
  // Everything that can be checked cheaply is checked before the model is loaded.
  std::vector<std::string> texts = o.texts;
  if (o.compare) {
    if (!o.file.empty()) throw UsageError("--compare takes two texts, not -f/--file");
    if (texts.empty()) texts = {kSwapA, kSwapB};
    if (texts.size() != 2)
      throw UsageError("--compare needs two texts (or none for the swap pair)");
  } else {
    if (!o.file.empty() && !texts.empty()) throw UsageError("give a TEXT or -f FILE, not both");
    if (!o.file.empty()) texts = {read_text(o.file)};
    if (texts.size() != 1) throw UsageError("give one TEXT or -f FILE (or --compare A B)");
  }
  for (const auto& t : texts) {
    if (blank(t)) throw InputError("the email is empty: nothing to explain");
  }
  if (!o.html.empty()) check_writable(o.html);

  const Model model = load_model_or_default(o.model);
  std::vector<Explanation> ex;
  for (const auto& t : texts) ex.push_back(explain(model, t));
  // Leave-one-word-out costs a forward pass a word: run once, for every view that shows it.
  const std::vector<WordEffect> words =
      o.compare ? std::vector<WordEffect>{} : word_effects(model, texts[0], ex[0].prediction.label);
  Style st;
  st.shade = !o.plain && (o.shade || ::isatty(STDOUT_FILENO));

  if (!o.html.empty()) {
    write_output_file(
        o.html, o.compare
                    ? comparison_html(ex[0], ex[1], model.labels(), texts[0], texts[1], o.top_k)
                    : explanation_html(ex[0], model.labels(), texts[0], o.top_k, words, o.words));
  }
  if (o.json) {
    nlohmann::json j;
    if (o.compare) {
      j = {{"a", explanation_json(model, ex[0], o.top_k)},
           {"b", explanation_json(model, ex[1], o.top_k)},
           {"emails", texts}};
    } else {
      j = explanation_json(model, ex[0], o.top_k);
      nlohmann::json listed = nlohmann::json::array();
      for (const auto& w : words) {
        listed.push_back({{"word", w.word},
                          {"index", w.index},
                          {"without", float_value(w.without)},
                          {"label_without", model.labels()[w.label_without]}});
      }
      j["words"] = listed;
    }
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  if (o.compare) {
    print_compare(model, ex[0], ex[1], texts[0], texts[1], o, st);
  } else {
    print_one(model, ex[0], texts[0], words, o, st);
  }
  if (!o.html.empty()) std::fprintf(stderr, "router: wrote %s\n", o.html.c_str());
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto opts = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand(
      "explain", "Why a label: the words that matter, token importance, attention maps");
  cmd->footer(
      "By default: the tokens, the prediction, the words that matter (each word left out in\n"
      "turn and the email read again, the largest falls of the predicted label first) and the\n"
      "heads that matter (each attention head switched off in turn, its output zeroed).\n"
      "--gradient adds each token's importance as gradient x input: the gradient of the\n"
      "predicted label's logit with respect\n"
      "to each token's input vector x0 (embedding + position), dotted with x0, scaled so that the\n"
      "absolute scores sum to 1. One forward and one backward pass in float, dropout off.\n"
      "Positive scores push towards the label, negative away. Top links leave out a token's\n"
      "link to itself.\n"
      "Heads are numbered layer.head from 0. See docs/explain.md.");
  cmd->add_option("text", opts->texts, "The email (two with --compare)");
  cmd->add_option("-f,--file", opts->file, "Read the email from FILE ('-' for stdin)");
  add_model_option(*cmd, opts->model);
  add_top_k_option(*cmd, opts->top_k, "Labels to list (default: 3)");
  cmd->add_option("--words", opts->words, "Words that matter to list")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--heads", opts->heads, "Heads that matter to list")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--gradient", opts->gradient, "Also each token's importance (gradient x input)");
  cmd->add_flag("--attention", opts->attention, "Also every head's attention map and top links");
  cmd->add_option("--links", opts->links, "Strongest links to list per head")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--json", opts->json,
                "Print one JSON object: tokens, attention[layer][head][i][j], importance, "
                "heads, words, prediction");
  cmd->add_option("--html", opts->html, "Also write a self-contained HTML page to FILE");
  cmd->add_flag(
      "--color,--shade", opts->shade,
      "Heat maps in Unicode shading and coloured bars even when stdout is not a terminal");
  cmd->add_flag("--plain", opts->plain, "Plain numbers even on a terminal");
  cmd->add_flag("--compare", opts->compare,
                "Two emails side by side (default: the swap pair of `router demo`)");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
