// Pictures for people: the explanation of one email (or two side by side) as one self-contained
// HTML page, and the sinusoidal positional encoding as an SVG heat map with clock hands. Pure
// string builders: no scripts, no fonts or anything else fetched, every token escaped, and the
// output is well-formed XML (the tests parse it). Writing to disk is the caller's job.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/explain.h"
#include "nn/tensor.h"

namespace router {

// Escapes & < > " ' for text and attribute values; control characters become U+FFFD.
std::string xml_escape(std::string_view s);

// One email: prediction and top-k, then the words that matter (`words`, from word_effects, the
// first `n_words` of them) as sentences a support lead reads directly, then importance bars and
// one heat map per layer and head (<svg class="heatmap">, L*H of them) labelled with the tokens.
std::string explanation_html(const Explanation& e, const std::vector<std::string>& labels,
                             const std::string& text, int top_k,
                             const std::vector<WordEffect>& words = {}, int n_words = 5);

// Two emails side by side: both predictions, both importance bars, and for every head both maps
// with their mean entropy and strongest links (2*L*H heat maps).
std::string comparison_html(const Explanation& a, const Explanation& b,
                            const std::vector<std::string>& labels, const std::string& text_a,
                            const std::string& text_b, int top_k);

// The sinusoid table (rows positions, cols dimensions) as a diverging blue-white-red heat map,
// with the `marked` positions outlined and read as clock hands (one hand per sin/cos pair).
std::string positions_svg(const Mat<double>& table, const std::vector<int>& marked);
// The same picture in a minimal HTML page.
std::string positions_html(const Mat<double>& table, const std::vector<int>& marked);

}  // namespace router
