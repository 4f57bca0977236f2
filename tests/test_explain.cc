// `router explain` and the pictures of `router positions`: the JSON shapes and invariants
// (attention rows sum to 1, |importance| sums to 1), gradient x input against central finite
// differences in double, well-formed HTML/SVG with one heat map per head and escaped tokens, a
// golden terminal output, clear errors before any work, and a headless-Chromium screenshot that
// is not blank (skipped without /usr/bin/chromium). Model: tests/fixtures/models/tiny.json.
#include "analysis/explain.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <iterator>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/render_html.h"
#include "model/json_format.h"
#include "nn/encoder.h"

#include "test_support.h"

namespace {

using router::test::quote;
using router::test::slurp;
using Result = router::test::CommandResult;

namespace fs = std::filesystem;
using nlohmann::json;
using namespace router;

const std::string kModel = std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/models/tiny.json";
const std::string kGolden =
    std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/explain/tiny_golden.txt";

// A tag-stack XML well-formedness check: <!DOCTYPE ...>, comments, <a ...>, </a>, <a/>, quoted
// attributes, and entities (&name; &#n; &#xh;). Returns "" when well-formed, else the problem.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> stack;
  static const std::regex kEntity(R"(^&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);)");
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_';
  };
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      std::smatch m;
      const std::string rest = s.substr(i, 12);
      if (!std::regex_search(rest, m, kEntity)) return "bad entity at " + std::to_string(i);
      i += m.length(0);
    } else if (s[i] != '<') {
      ++i;
    } else if (s.compare(i, 4, "<!--") == 0) {
      const size_t end = s.find("-->", i + 4);
      if (end == std::string::npos) return "unclosed comment";
      i = end + 3;
    } else if (s.compare(i, 2, "<!") == 0) {
      if (stack.size() || s.compare(i, 9, "<!DOCTYPE") != 0)
        return "stray <! at " + std::to_string(i);
      i = s.find('>', i) + 1;
    } else if (s.compare(i, 2, "</") == 0) {
      size_t j = i + 2;
      while (j < s.size() && is_name(s[j])) ++j;
      const std::string name = s.substr(i + 2, j - i - 2);
      if (j >= s.size() || s[j] != '>') return "bad end tag " + name;
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
      }
      stack.pop_back();
      i = j + 1;
    } else {
      size_t j = i + 1;
      while (j < s.size() && is_name(s[j])) ++j;
      const std::string name = s.substr(i + 1, j - i - 1);
      if (name.empty()) return "bare < at " + std::to_string(i);
      char in_quote = 0;
      for (; j < s.size(); ++j) {
        if (in_quote) {
          if (s[j] == in_quote)
            in_quote = 0;
          else if (s[j] == '<')
            return "< inside an attribute of <" + name + ">";
        } else if (s[j] == '"' || s[j] == '\'') {
          in_quote = s[j];
        } else if (s[j] == '>') {
          break;
        }
      }
      if (j >= s.size()) return "unclosed tag <" + name;
      if (s[j - 1] != '/') stack.push_back(name);
      i = j + 1;
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return "";
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t i = hay.find(needle); i != std::string::npos; i = hay.find(needle, i + 1)) ++n;
  return n;
}

class Explain : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return tmp_.path(name); }
  Result run(const std::string& args) { return router::test::run_router(args, tmp_.dir()); }
  router::test::TempDir tmp_{"router_explain"};
  int runs_ = 0;
};

TEST_F(Explain, JsonShapesRowsSumToOneImportanceSumsToOne) {
  const Result r = run("explain --json -m " + quote(kModel) + " 'where is my order, not the cake'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const size_t T = j.at("tokens").size();
  ASSERT_GT(T, 3u);
  ASSERT_EQ(j.at("attention").size(), 1u);  // tiny: 1 layer
  for (const auto& layer : j.at("attention")) {
    ASSERT_EQ(layer.size(), 2u);  // 2 heads
    for (const auto& head : layer) {
      ASSERT_EQ(head.size(), T);
      for (const auto& row : head) {
        ASSERT_EQ(row.size(), T);
        double sum = 0;
        for (double v : row) {
          EXPECT_GE(v, 0.0);
          sum += v;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    }
  }
  ASSERT_EQ(j.at("importance").size(), T);
  ASSERT_EQ(j.at("heads").size(), 2u);  // each head switched off: {layer, head, without, ...}
  for (const auto& h : j.at("heads")) {
    EXPECT_EQ(h.at("layer"), 0);
    EXPECT_TRUE(h.at("label_without").is_string());
    EXPECT_GE(h.at("without").get<double>(), 0.0);
  }
  double total = 0;
  for (double v : j.at("importance")) total += std::abs(v);
  EXPECT_NEAR(total, 1.0, 1e-6);
  const json& p = j.at("prediction");
  EXPECT_TRUE(p.at("label").is_string());
  EXPECT_EQ(p.at("top_k").size(), 3u);
  EXPECT_EQ(p.at("top_k")[0].at("label"), p.at("label"));
  EXPECT_DOUBLE_EQ(p.at("top_k")[0].at("score").get<double>(), p.at("confidence").get<double>());
  // The same numbers as `classify --json`, each printed as the shortest decimal of its float
  // (not the float widened to a double, 0.8999999761581421 for 0.9f).
  const Result c =
      run("classify --json -m " + quote(kModel) + " 'where is my order, not the cake'");
  ASSERT_EQ(c.code, 0) << c.err;
  const json cj = json::parse(c.out);
  EXPECT_EQ(p.at("confidence").get<double>(), cj.at("confidence").get<double>());
  EXPECT_EQ(p.at("top_k")[1].at("score").dump(), cj.at("top_k")[1].at("score").dump());
}

// logit `label` of the unrolled model with x0_t moved to (1 + eps) x0_t.
double logit_scaled(const Params<double>& unrolled, const Config& cfg, const Mat<double>& pos,
                    const std::vector<int32_t>& uids, int t, double eps, int label) {
  Params<double> p = unrolled;
  // x0_t = embed row t+1 + positions row t; adding eps * x0_t to the embedding row moves x0_t.
  RowVec<double> x0 = p.embed.row(t + 1);
  if (cfg.positional == Positional::kSinusoidal) x0 += pos.row(t);
  p.embed.row(t + 1) += eps * x0;
  ForwardCache<double> cache;
  encoder_forward(p, cfg, pos, make_batch({&uids}), 0.0, cache);
  return cache.logits(0, label);
}

TEST(ExplainMath, GradientTimesInputMatchesFiniteDifferences) {
  const Model model = load_model(kModel);
  const Params<double> params = cast_params<double>(model.params());
  const Mat<double> pos = model.positions().cast<double>();
  const std::vector<int32_t> ids = model.encode("where is my order order");  // a repeated token
  Config cfg = model.config();
  std::vector<int32_t> uids;
  const Params<double> unrolled = unrolled_params(params, ids, cfg, uids);
  for (int label = 0; label < static_cast<int>(model.labels().size()); ++label) {
    const std::vector<double> got = gradient_x_input(params, model.config(), pos, ids, label);
    const std::vector<double> got_f =
        gradient_x_input(model.params(), model.config(), model.positions(), ids, label);
    ASSERT_EQ(got.size(), ids.size());
    double scale = 0;
    for (double v : got) scale = std::max(scale, std::abs(v));
    for (size_t t = 0; t < ids.size(); ++t) {
      // d/d eps logit(x0_t (1 + eps)) at 0 = grad_t . x0_t
      const double eps = 1e-5;
      const double fd = (logit_scaled(unrolled, cfg, pos, uids, static_cast<int>(t), eps, label) -
                         logit_scaled(unrolled, cfg, pos, uids, static_cast<int>(t), -eps, label)) /
                        (2 * eps);
      EXPECT_NEAR(got[t], fd, 1e-6 + 1e-5 * std::abs(fd)) << "label " << label << " token " << t;
      EXPECT_NEAR(got_f[t], got[t], 1e-2 * scale + 1e-6)
          << "float path, label " << label << " token " << t;
    }
  }
}

TEST(ExplainMath, ExplainMatchesPredictAndNormalises) {
  const Model model = load_model(kModel);
  const Explanation e = explain(model, "where is my order");
  const Prediction p = model.predict("where is my order");
  EXPECT_EQ(e.prediction.label, p.label);
  EXPECT_NEAR(e.prediction.confidence, p.confidence, 1e-6);
  ASSERT_EQ(e.importance.size(), e.tokens.size());
  double total = 0;
  for (double v : e.importance) total += std::abs(v);
  EXPECT_NEAR(total, 1.0, 1e-9);
  Mat<float> a(3, 3);
  a << 0.1f, 0.7f, 0.2f, 0.5f, 0.4f, 0.1f, 0.3f, 0.3f, 0.4f;
  const std::vector<Link> links = top_links(a, 2);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].from, 0);
  EXPECT_EQ(links[0].to, 1);
  EXPECT_EQ(links[1].from, 1);
  EXPECT_EQ(links[1].to, 0);
  EXPECT_EQ(display_token("\u2581cake"), "cake");  // U+2581 marks a word's start
  EXPECT_EQ(xml_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

// The heads that matter: every head once, the largest fall first, and each probability is what
// the model gives when that head's slice of the output projection is zeroed, read through the
// prediction path (encoder_logits, as Model::predict), not the explain forward.
TEST(ExplainMath, HeadsThatMatterAreEachHeadSwitchedOff) {
  const Model model = load_model(kModel);
  const std::string text = "where is my order";
  const Explanation e = explain(model, text);
  const Config& c = model.config();
  ASSERT_EQ(e.heads.size(), static_cast<size_t>(c.n_layers * c.n_heads));
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < e.heads.size(); ++i) {
    const HeadEffect& h = e.heads[i];
    seen.insert({h.layer, h.head});
    if (i > 0) {
      EXPECT_LE(e.heads[i - 1].without, h.without) << "sorted, largest fall first";
    }
    Params<float> p = model.params();
    const int Dh = c.d_model / c.n_heads;
    p.layers[h.layer].out_w.middleCols(h.head * Dh, Dh).setZero();
    const std::vector<int32_t> ids = model.encode(text);
    const Mat<float> logits =
        encoder_logits(p, inference_weights(p), c, model.positions(), make_batch({&ids}));
    const Prediction q = model.finish(logits.row(0));
    EXPECT_NEAR(h.without, q.probs[e.prediction.label], 1e-5)
        << "head " << h.layer << "." << h.head;
    EXPECT_EQ(h.label_without, q.label);
  }
  EXPECT_EQ(seen.size(), e.heads.size());
  EXPECT_EQ(change_words(0.9671f, 0.4755f), "falls from 0.9671 to 0.4755");
  EXPECT_EQ(change_words(0.5f, 0.75f), "rises from 0.5000 to 0.7500");
  EXPECT_EQ(change_words(0.96771f, 0.96768f), "stays at 0.9677");
}

TEST_F(Explain, HtmlIsWellFormedWithOneHeatMapPerHeadAndEscapedTokens) {
  const std::string html = path("out.html");
  const Result r = run("explain -m " + quote(kModel) + " --html " + quote(html) +
                       " 'where is <b>my</b> order & \"why\" '\\''now'\\'''");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = slurp(html);
  EXPECT_EQ(xml_problem(page), "");
  EXPECT_EQ(count(page, "<svg class=\"heatmap\""), 2u);  // 1 layer x 2 heads
  // The summary a support lead reads comes before the maps.
  const size_t words = page.find("The words that matter");
  ASSERT_NE(words, std::string::npos);
  EXPECT_LT(words, page.find("<svg class=\"heatmap\""));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // Nothing is fetched: the only URL is the SVG namespace name.
  EXPECT_EQ(count(page, "http://"), count(page, "http://www.w3.org/2000/svg"));
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<b>my"), std::string::npos) << "raw text leaked into the page";
  for (const char* token : {">er<", ">or<", ">m<"}) {  // tiny splits words into short pieces
    EXPECT_NE(page.find(token), std::string::npos) << token;
  }
  const Result c =
      run("explain --compare -m " + quote(kModel) + " --html " + quote(path("cmp.html")));
  ASSERT_EQ(c.code, 0) << c.err;
  const std::string cmp = slurp(path("cmp.html"));
  EXPECT_EQ(xml_problem(cmp), "");
  EXPECT_EQ(count(cmp, "<svg class=\"heatmap\""), 4u);  // 2 emails x 1 layer x 2 heads
  EXPECT_NE(c.out.find("Refund the cake, not the delivery fee."), std::string::npos);
  EXPECT_NE(c.out.find("entropy A"), std::string::npos);
}

TEST_F(Explain, PositionsSvgAndHtmlAreWellFormedAndKeepTheTable) {
  const Result plain = run("positions");
  const Result r =
      run("positions --svg " + quote(path("p.svg")) + " --html " + quote(path("p.html")));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, plain.out);
  EXPECT_NE(r.err.find("wrote " + path("p.svg")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wrote " + path("p.html")), std::string::npos) << r.err;
  {  // the caption fits: the picture is at least as wide as its text needs (6.6 px a character)
    const std::string svg = slurp(path("p.svg"));
    const size_t at = svg.find("width=\"") + 7;
    const size_t caption = svg.find("sinusoidal positions:");
    const size_t caption_end = svg.find("</text>", caption);
    EXPECT_GE(std::stod(svg.substr(at)), 70 + 6.6 * static_cast<double>(caption_end - caption));
  }
  for (const char* name : {"p.svg", "p.html"}) {
    const std::string s = slurp(path(name));
    EXPECT_EQ(xml_problem(s), "") << name;
    EXPECT_EQ(count(s, "<g class=\"heatmap\""), 1u) << name;
    EXPECT_EQ(count(s, "<rect x") - 1 - 5, 50u * 4)
        << name;                                     // background, 5 outlines, 50 x 4 cells
    EXPECT_EQ(count(s, "<circle"), 5u * 2) << name;  // 5 positions x 2 pairs
    EXPECT_NE(s.find(">pos 44<"), std::string::npos) << name;
  }
  const Result wide = run("positions --d-model 64 --positions 0,100 --svg " + quote(path("w.svg")));
  ASSERT_EQ(wide.code, 0) << wide.err;
  const std::string w = slurp(path("w.svg"));
  EXPECT_EQ(xml_problem(w), "");
  EXPECT_EQ(count(w, "<rect x") - 1 - 2, 101u * 64);
}

TEST_F(Explain, GoldenTerminalOutput) {
  const Result r =
      run("explain --gradient --attention -m " + quote(kModel) + " 'where is my order'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(kGolden)) << "regenerate with: router explain --gradient --attention -m "
                                   << kModel << " 'where is my order' > " << kGolden;
}

// The default view is a summary: tokens, prediction, the words that matter; no attention maps.
// The word named first is the one whose removal lowers the label most, checked against the
// model reading each shortened email itself.
TEST_F(Explain, WordsThatMatterComeFirstAndAreRight) {
  const std::string email = "Refund the cake, not the delivery fee.";
  const Result summary = run("explain " + quote(email));
  ASSERT_EQ(summary.code, 0) << summary.err;
  EXPECT_NE(summary.out.find("words that matter"), std::string::npos) << summary.out;
  EXPECT_NE(summary.out.find("heads that matter"), std::string::npos) << summary.out;
  EXPECT_EQ(summary.out.find("mean entropy"), std::string::npos) << "maps only with --attention";
  const Result j = run("explain --json " + quote(email));
  ASSERT_EQ(j.code, 0) << j.err;
  const auto x = nlohmann::json::parse(j.out);
  const std::string label = x["prediction"]["label"];
  std::istringstream in(email);
  std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  std::string lines;
  for (size_t w = 0; w < words.size(); ++w) {
    std::string v;
    for (size_t i = 0; i < words.size(); ++i) {
      if (i != w) v += (v.empty() ? "" : " ") + words[i];
    }
    lines += v + "\n";
  }
  const std::string variants = tmp_.path("variants.txt");
  router::test::spit(variants, lines);
  const Result each = run("classify --json -k 20 --lines -f " + quote(variants));
  ASSERT_EQ(each.code, 0) << each.err;
  ASSERT_FALSE(each.out.empty()) << each.err;
  std::istringstream out(each.out);
  size_t lowest = 0, w = 0;
  double lowest_p = 2;
  for (std::string line; std::getline(out, line); ++w) {
    const auto parsed = nlohmann::json::parse(line);
    for (const auto& t : parsed["top_k"]) {
      if (t["label"] == label && t["score"].get<double>() < lowest_p) {
        lowest_p = t["score"].get<double>();
        lowest = w;
      }
    }
  }
  ASSERT_FALSE(x["words"].empty());
  EXPECT_EQ(x["words"][0]["word"], words[lowest]);
  EXPECT_EQ(x["words"][0]["index"], lowest);
  EXPECT_NEAR(x["words"][0]["without"].get<double>(), lowest_p, 1e-6);
}

TEST_F(Explain, BadInputFailsClearlyBeforeWork) {
  const std::string html = path("x.html");
  Result r = run("explain -m " + quote(kModel) + " --html " + quote(html) + " '   '");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
  r = run("explain -m " + quote(path("no-such-model.json")) + " --html " +
          quote(path("missing/dir/x.html")) + " 'where is my order'");
  EXPECT_EQ(r.code, 5) << r.err;  // the unwritable output is found before the model is read
  EXPECT_NE(r.err.find("missing/dir"), std::string::npos) << r.err;
  r = run("positions --svg " + quote(path("missing/dir/p.svg")));
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_TRUE(r.out.empty());
  // A model without attention layers.
  json m = json::parse(slurp(kModel));
  m["config"]["n_layers"] = 0;
  for (auto it = m["tensors"].begin(); it != m["tensors"].end();) {
    it = it.key().rfind("layers.", 0) == 0 ? m["tensors"].erase(it) : std::next(it);
  }
  std::ofstream(path("flat.json")) << m.dump();
  r = run("explain -m " + quote(path("flat.json")) + " --html " + quote(html) +
          " 'where is my order'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("no attention layer"), std::string::npos) << r.err;
  r = run("explain -m " + quote(kModel) + " --compare 'only one'");
  EXPECT_EQ(r.code, 2) << r.err;
  for (const auto& e : fs::directory_iterator(tmp_.dir())) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.rfind("std", 0) == 0 || name == "flat.json") << "left behind: " << name;
  }
}

TEST_F(Explain, ChromiumScreenshotIsNotBlank) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "/usr/bin/chromium is not installed";
  const Result r = run("explain -m " + quote(kModel) + " --html " + quote(path("e.html")) +
                       " 'where is my order, not the cake'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ofstream(path("blank.html")) << "<!DOCTYPE html><html><body></body></html>\n";
  auto shot = [&](const std::string& html, const std::string& png) {
    const std::string profile = path("profile-" + png);
    fs::create_directories(profile);
    const std::string cmd =
        "timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic "
        "--no-first-run --disable-background-networking --disable-component-update "
        "--disable-sync --user-data-dir=" +
        quote(profile) + " --screenshot=" + quote(path(png)) + " --window-size=1280,900 " +
        quote("file://" + path(html)) + " >/dev/null 2>&1";
    std::system(cmd.c_str());
    return fs::exists(path(png)) ? fs::file_size(path(png)) : 0;
  };
  const auto blank = shot("blank.html", "blank.png");
  const auto page = shot("e.html", "e.png");
  ASSERT_GT(blank, 0u) << "chromium made no screenshot of an empty page";
  EXPECT_GT(page, 5000u);
  EXPECT_GT(page, 4 * blank) << "the page screenshot is about as small as an empty page's";
}

}  // namespace
