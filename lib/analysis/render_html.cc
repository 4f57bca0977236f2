#include "analysis/render_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace router {

namespace {

std::string num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string rgb(double r, double g, double b) {
  auto c = [](double x) { return static_cast<int>(std::lround(std::clamp(x, 0.0, 1.0) * 255)); };
  char buf[32];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c(r), c(g), c(b));
  return buf;
}

// 0 -> white, 1 -> dark blue.
std::string sequential(double v) {
  v = std::clamp(v, 0.0, 1.0);
  return rgb(1 - 0.92 * v, 1 - 0.75 * v, 1 - 0.45 * v);
}

// -1 -> blue, 0 -> white, +1 -> red.
std::string diverging(double v) {
  v = std::clamp(v, -1.0, 1.0);
  if (v >= 0) return rgb(1 - 0.15 * v, 1 - 0.85 * v, 1 - 0.85 * v);
  return rgb(1 + 0.85 * v, 1 + 0.6 * v, 1 + 0.15 * v);
}

constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
h2 { font-size: 16px; margin: 20px 0 8px 0; }
.email { font-family: monospace; background: #f3f3f3; padding: 6px 10px; display: inline-block; }
.pred { font-size: 16px; margin: 8px 0; }
table.topk td { padding: 1px 10px 1px 0; font-family: monospace; }
.maps { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; }
figcaption { font-size: 12px; margin-top: 2px; max-width: 340px; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
.pair { display: flex; gap: 18px; flex-wrap: wrap; }
svg text { font-family: monospace; font-size: 11px; fill: #222; }
.note { font-size: 12px; color: #555; max-width: 900px; }
</style>
)";

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" +
         xml_escape(title) + "</title>\n" + kStyle + "</head>\n<body>\n" + body +
         "</body>\n</html>\n";
}

std::vector<std::string> shown(const Explanation& e) {
  std::vector<std::string> out;
  for (const auto& t : e.tokens) out.push_back(display_token(t));
  return out;
}

// Approximate text width for layout: 7 px per character of a monospace 11 px font.
double text_width(const std::string& s) {
  size_t chars = 0;
  for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
  return 7.0 * static_cast<double>(std::min<size_t>(chars, 16));
}

// One attention map (T, T) as an SVG heat map: query tokens down, key tokens across.
std::string heatmap_svg(const Mat<float>& a, const std::vector<std::string>& tokens) {
  const int T = static_cast<int>(tokens.size());
  const double cell = std::clamp(260.0 / std::max(T, 1), 8.0, 30.0);
  // Colour is scaled to the map's largest weight, so near-uniform heads still show structure.
  const double vmax = std::max(static_cast<double>(a.maxCoeff()), 1e-9);
  double label_w = 20;
  for (const auto& t : tokens) label_w = std::max(label_w, text_width(t) + 8);
  const double left = label_w, top = label_w * 0.75 + 6;
  const double w = left + cell * T + label_w * 0.75 + 4, h = top + cell * T + 4;
  std::string s = "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) +
                  "\" height=\"" + num(h) + "\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\">\n";
  for (int i = 0; i < T; ++i) {
    const std::string tok = xml_escape(tokens[i]);
    s += "<text x=\"" + num(left - 4) + "\" y=\"" + num(top + cell * (i + 0.5) + 4) +
         "\" text-anchor=\"end\">" + tok + "</text>\n";
    const double cx = left + cell * (i + 0.5) + 4, cy = top - 4;
    s += "<text x=\"" + num(cx) + "\" y=\"" + num(cy) + "\" transform=\"rotate(-45 " + num(cx) +
         " " + num(cy) + ")\">" + tok + "</text>\n";
  }
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      const double v = a(i, j);
      s += "<rect x=\"" + num(left + cell * j) + "\" y=\"" + num(top + cell * i) + "\" width=\"" +
           num(cell) + "\" height=\"" + num(cell) + "\" fill=\"" + sequential(v / vmax) +
           "\"><title>" + xml_escape(tokens[i]) + " -&gt; " + xml_escape(tokens[j]) + " " +
           num(v, 3) + "</title></rect>\n";
      if (cell >= 26) {
        s += "<text x=\"" + num(left + cell * (j + 0.5)) + "\" y=\"" +
             num(top + cell * i + cell / 2 + 4) +
             "\" text-anchor=\"middle\" style=\"font-size:9px;fill:" +
             (v / vmax > 0.55 ? "#fff" : "#333") + "\">" + num(v * 100, 0) + "</text>\n";
      }
    }
  }
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(cell * T) +
       "\" height=\"" + num(cell * T) + "\" fill=\"none\" stroke=\"#999\"/>\n</svg>\n";
  return s;
}

// Importance bars: one row per token, positive to the right (red), negative to the left (blue).
std::string importance_svg(const Explanation& e) {
  const std::vector<std::string> tokens = shown(e);
  const int T = static_cast<int>(tokens.size());
  double label_w = 40;
  for (const auto& t : tokens) label_w = std::max(label_w, text_width(t) + 10);
  const double row = 18, half = 150, mid = label_w + half, w = label_w + 2 * half + 60;
  const double h = row * T + 8;
  std::string s = "<svg class=\"importance\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " + num(w) + " " + num(h) +
                  "\">\n";
  for (int t = 0; t < T; ++t) {
    const double v = e.importance[t], y = 4 + row * t;
    const double len = std::abs(v) * half;
    s += "<text x=\"" + num(label_w - 6) + "\" y=\"" + num(y + 13) + "\" text-anchor=\"end\">" +
         xml_escape(tokens[t]) + "</text>\n";
    s += "<rect x=\"" + num(v >= 0 ? mid : mid - len) + "\" y=\"" + num(y + 2) + "\" width=\"" +
         num(len) + "\" height=\"" + num(row - 4) + "\" fill=\"" +
         (v >= 0 ? "#d0453a" : "#3a6fd0") + "\"/>\n";
    s += "<text x=\"" + num(v >= 0 ? mid + len + 4 : mid + 4) + "\" y=\"" + num(y + 13) + "\">" +
         (v >= 0 ? "+" : "") + num(v, 3) + "</text>\n";
  }
  s += "<line x1=\"" + num(mid) + "\" y1=\"0\" x2=\"" + num(mid) + "\" y2=\"" + num(h) +
       "\" stroke=\"#666\"/>\n</svg>\n";
  return s;
}

std::string prediction_block(const Explanation& e, const std::vector<std::string>& labels,
                             int top_k) {
  const Prediction& p = e.prediction;
  std::string s = "<p class=\"pred\">label <b>" + xml_escape(labels[p.label]) +
                  "</b>, confidence " + num(p.confidence, 4) + "</p>\n<table class=\"topk\">\n";
  std::vector<int> order(p.probs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return p.probs[x] > p.probs[y]; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(std::max(top_k, 1))));
  for (int k : order) {
    s += "<tr><td>" + xml_escape(labels[k]) + "</td><td>" + num(p.probs[k], 4) + "</td></tr>\n";
  }
  s += "</table>\n";
  if (e.truncated) s += "<p class=\"note\">The email was cut to the model's max_len tokens.</p>\n";
  return s;
}

std::string links_text(const Explanation& e, int l, int h) {
  const std::vector<std::string> tokens = shown(e);
  std::string s = "entropy " + num(mean_entropy(e.attention[l][h]), 2) + " nats";
  for (const Link& k : top_links(e.attention[l][h], 3)) {
    s += "; '" + xml_escape(tokens[k.from]) + "'[" + std::to_string(k.from) + "] -&gt; '" +
         xml_escape(tokens[k.to]) + "'[" + std::to_string(k.to) + "] " + num(k.weight, 2);
  }
  return s;
}

std::string head_figure(const Explanation& e, int l, int h, const std::string& prefix) {
  return "<figure>\n" + heatmap_svg(e.attention[l][h], shown(e)) + "<figcaption><b>" + prefix +
         "head " + std::to_string(l) + "." + std::to_string(h) + "</b> " + links_text(e, l, h) +
         "</figcaption>\n</figure>\n";
}

constexpr const char* kImportanceNote =
    "Importance is gradient x input: the gradient of the predicted label's logit with respect to "
    "each token's input vector x0 (embedding + position), dotted with x0, scaled so that the "
    "absolute values sum to 1. Red pushes towards the label, blue away from it.";

constexpr const char* kMapNote =
    "Each map: row = the token that looks (query), column = the token looked at (key), darker = "
    "more attention (shading scaled to each map's largest weight); each row sums to 1. Heads are "
    "numbered layer.head from 0.";

// Of an ensemble, whose heads and attention maps are shown: the first member's.
std::string first_member_note(const Explanation& e) {
  return e.members > 1 ? " The heads of the first of " + std::to_string(e.members) + " members."
                       : "";
}

// The three heads whose absence moves the prediction most, as sentences.
std::string heads_list(const Explanation& e, const std::vector<std::string>& labels) {
  if (e.heads.empty()) return "";
  const std::string& label = labels[static_cast<size_t>(e.prediction.label)];
  std::string b =
      "<h2>The heads that matter</h2>\n<p class=\"note\">Each attention head switched off in "
      "turn (its output zeroed) and the email read again; the largest falls of " +
      xml_escape(label) + " first." + first_member_note(e) + "</p>\n<ul class=\"words\">\n";
  for (size_t i = 0; i < e.heads.size() && i < 3; ++i) {
    const HeadEffect& h = e.heads[i];
    b += "<li>without head <b>" + std::to_string(h.layer) + "." + std::to_string(h.head) +
         "</b>, " + xml_escape(label) + " " + change_words(e.prediction.confidence, h.without);
    if (h.label_without != e.prediction.label) {
      b += "; the label becomes <b>" + xml_escape(labels[static_cast<size_t>(h.label_without)]) +
           "</b>";
    }
    b += "</li>\n";
  }
  return b + "</ul>\n";
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
          out += "\xEF\xBF\xBD";
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string explanation_html(const Explanation& e, const std::vector<std::string>& labels,
                             const std::string& text, int top_k,
                             const std::vector<WordEffect>& words, int n_words) {
  std::string b = "<h1>router explain</h1>\n<p><span class=\"email\">" + xml_escape(text) +
                  "</span></p>\n" + prediction_block(e, labels, top_k);
  if (!words.empty()) {
    const std::string& label = labels[static_cast<size_t>(e.prediction.label)];
    b += "<h2>The words that matter</h2>\n<p class=\"note\">Each word left out in turn and the "
         "email read again; the largest falls of " +
         xml_escape(label) + " first.</p>\n<ul class=\"words\">\n";
    for (size_t i = 0; i < words.size() && static_cast<int>(i) < n_words; ++i) {
      const WordEffect& w = words[i];
      b += "<li>without <b>" + xml_escape(w.word) + "</b>, " + xml_escape(label) + " " +
           change_words(e.prediction.confidence, w.without);
      if (w.label_without != e.prediction.label) {
        b += "; the label becomes <b>" + xml_escape(labels[static_cast<size_t>(w.label_without)]) +
             "</b>";
      }
      b += "</li>\n";
    }
    b += "</ul>\n";
  }
  b += heads_list(e, labels);
  b += "<h2>Token importance</h2>\n" + importance_svg(e) + "<p class=\"note\">" + kImportanceNote +
       "</p>\n<h2>Attention</h2>\n<p class=\"note\">" + kMapNote + first_member_note(e) +
       "</p>\n<div class=\"maps\">\n";
  for (size_t l = 0; l < e.attention.size(); ++l) {
    for (size_t h = 0; h < e.attention[l].size(); ++h) {
      b += head_figure(e, static_cast<int>(l), static_cast<int>(h), "");
    }
  }
  b += "</div>\n";
  return page("router explain: " + text, b);
}

std::string comparison_html(const Explanation& a, const Explanation& b_,
                            const std::vector<std::string>& labels, const std::string& text_a,
                            const std::string& text_b, int top_k) {
  std::string b = "<h1>router explain --compare</h1>\n<div class=\"cols\">\n";
  const Explanation* ex[2] = {&a, &b_};
  const std::string* texts[2] = {&text_a, &text_b};
  for (int s = 0; s < 2; ++s) {
    b += std::string("<div>\n<h2>") + (s ? "B" : "A") + "</h2>\n<p><span class=\"email\">" +
         xml_escape(*texts[s]) + "</span></p>\n" + prediction_block(*ex[s], labels, top_k) +
         importance_svg(*ex[s]) + "</div>\n";
  }
  b += std::string("</div>\n<p class=\"note\">") + kImportanceNote +
       "</p>\n<h2>Attention, head by head (A left, B right)</h2>\n<p class=\"note\">" + kMapNote +
       " Entropy is the mean over rows, in nats.</p>\n";
  for (size_t l = 0; l < a.attention.size(); ++l) {
    for (size_t h = 0; h < a.attention[l].size(); ++h) {
      b += "<div class=\"pair\">\n" +
           head_figure(a, static_cast<int>(l), static_cast<int>(h), "A ") +
           head_figure(b_, static_cast<int>(l), static_cast<int>(h), "B ") + "</div>\n";
    }
  }
  return page("router explain --compare", b);
}

namespace {

// Where the positions picture puts things, in px: the heat map's top left corner at (left, top),
// one cw x ch cell per value, the clocks from clocks_x on; w x h in all.
struct PositionsLayout {
  int P = 0, D = 0;  // positions (rows), dimensions (columns)
  int pairs = 0;     // sin/cos pairs drawn as clocks
  double cw = 0, ch = 0, left = 70, top = 40, map_w = 0, map_h = 0;
  double clock_r = 13, clock_gap = 32, clocks_x = 0;
  double w = 0, h = 0;
  std::string caption;
};

PositionsLayout positions_layout(const Mat<double>& table, size_t marked) {
  PositionsLayout g;
  g.P = static_cast<int>(table.rows());
  g.D = static_cast<int>(table.cols());
  g.cw = std::clamp(480.0 / g.D, 1.0, 48.0);
  g.ch = std::clamp(560.0 / g.P, 1.0, 12.0);
  g.map_w = g.cw * g.D;
  g.map_h = g.ch * g.P;
  g.pairs = std::min(g.D / 2, 8);
  g.clocks_x = g.left + g.map_w + 110;
  g.caption = "sinusoidal positions: " + std::to_string(g.P) + " positions (down) x d_model " +
              std::to_string(g.D) + " (across); blue -1, white 0, red +1";
  // Wide enough for the caption: 11 px monospace is about 6.6 px a character.
  g.w = std::max({g.clocks_x + std::max(g.pairs, 1) * g.clock_gap + 30, g.left + 600,
                  g.left + 6.8 * static_cast<double>(g.caption.size()) + 20});
  g.h = std::max(g.top + g.map_h + 50, g.top + 40.0 * static_cast<double>(marked) + 60);
  return g;
}

// The table's cells, and a position number every tenth of the rows.
std::string positions_heatmap(const Mat<double>& table, const PositionsLayout& g) {
  std::string s = "<g class=\"heatmap\">\n";
  for (int p = 0; p < g.P; ++p) {
    for (int d = 0; d < g.D; ++d) {
      s += "<rect x=\"" + num(g.left + g.cw * d, 2) + "\" y=\"" + num(g.top + g.ch * p, 2) +
           "\" width=\"" + num(g.cw + 0.05, 2) + "\" height=\"" + num(g.ch + 0.05, 2) +
           "\" fill=\"" + diverging(table(p, d)) + "\"/>\n";
    }
  }
  s += "</g>\n";
  for (int p = 0; p < g.P; p += std::max(1, g.P / 10)) {
    s += "<text x=\"" + num(g.left - 6) + "\" y=\"" + num(g.top + g.ch * (p + 0.5) + 4) +
         "\" text-anchor=\"end\" style=\"fill:#888\">" + std::to_string(p) + "</text>\n";
  }
  return s;
}

// Marked position p, the m-th: its outline on the map, a line to its row of clocks, and one
// clock per (sin, cos) pair, the hand at angle pos * omega_i clockwise from 12 o'clock, read
// straight from the table (sin, cos).
std::string position_clocks(const Mat<double>& table, int p, size_t m, const PositionsLayout& g) {
  const double y = g.top + g.ch * p, cy = g.top + 22 + 40.0 * static_cast<double>(m);
  std::string s = "<rect x=\"" + num(g.left - 1) + "\" y=\"" + num(y - 1) + "\" width=\"" +
                  num(g.map_w + 2) + "\" height=\"" + num(g.ch + 2) +
                  "\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n";
  s += "<line x1=\"" + num(g.left + g.map_w + 2) + "\" y1=\"" + num(y + g.ch / 2) + "\" x2=\"" +
       num(g.clocks_x - 40) + "\" y2=\"" + num(cy) + "\" stroke=\"#aaa\"/>\n";
  s += "<text x=\"" + num(g.clocks_x - 36) + "\" y=\"" + num(cy + 4) + "\">pos " +
       std::to_string(p) + "</text>\n";
  for (int i = 0; i < g.pairs; ++i) {
    const double cx = g.clocks_x + 30 + g.clock_gap * i;
    const double sn = table(p, 2 * i), cs = table(p, 2 * i + 1);
    s += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(g.clock_r) +
         "\" fill=\"#fafafa\" stroke=\"#888\"/>\n";
    s += "<line x1=\"" + num(cx) + "\" y1=\"" + num(cy) + "\" x2=\"" + num(cx + g.clock_r * sn, 2) +
         "\" y2=\"" + num(cy - g.clock_r * cs, 2) + "\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n";
  }
  return s;
}

}  // namespace

std::string positions_svg(const Mat<double>& table, const std::vector<int>& marked) {
  const PositionsLayout g = positions_layout(table, marked.size());
  std::string s = "<svg class=\"positions\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  num(g.w) + "\" height=\"" + num(g.h) + "\" viewBox=\"0 0 " + num(g.w) + " " +
                  num(g.h) + "\">\n";
  s += "<style>text { font-family: monospace; font-size: 11px; fill: #222; }</style>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + num(g.w) + "\" height=\"" + num(g.h) +
       "\" fill=\"#fff\"/>\n";
  s += "<text x=\"" + num(g.left) + "\" y=\"16\">" + g.caption + "</text>\n";
  s += "<text x=\"" + num(g.left) + "\" y=\"" + num(g.top - 6) + "\">dim 0</text>\n";
  s += "<text x=\"" + num(g.left + g.map_w) + "\" y=\"" + num(g.top - 6) +
       "\" text-anchor=\"end\">" + std::to_string(g.D - 1) + "</text>\n";
  s += positions_heatmap(table, g);
  s += "<text x=\"" + num(g.clocks_x) + "\" y=\"" + num(g.top - 6) +
       "\">clock hands, one per sin/cos pair" +
       (g.D / 2 > g.pairs
            ? " (first " + std::to_string(g.pairs) + " of " + std::to_string(g.D / 2) + ")"
            : "") +
       "</text>\n";
  for (size_t m = 0; m < marked.size(); ++m) {
    if (marked[m] >= 0 && marked[m] < g.P) s += position_clocks(table, marked[m], m, g);
  }
  s += "</svg>\n";
  return s;
}

std::string positions_html(const Mat<double>& table, const std::vector<int>& marked) {
  return page("router positions",
              "<h1>Sinusoidal positional encoding</h1>\n" + positions_svg(table, marked) +
                  "<p class=\"note\">P[pos, 2i] = sin(pos / 10000^(2i/D)), "
                  "P[pos, 2i+1] = cos(pos / 10000^(2i/D)). Each clock shows one "
                  "(sin, cos) pair of a marked position as a hand: pair i turns "
                  "by 1 / 10000^(2i/D) radians per position.</p>\n");
}

}  // namespace router
