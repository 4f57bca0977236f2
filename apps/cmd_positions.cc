// `router positions`: the sinusoidal positional-encoding table, one row per position; --svg and
// --html also draw it as a heat map with the chosen positions read as clock hands.
#include <cstdio>
#include <sstream>

#include <spdlog/spdlog.h>

#include "analysis/render_html.h"
#include "base/errors.h"
#include "base/files.h"
#include "common.h"
#include "nn/positional.h"

namespace router::app {

namespace {

struct PositionsOptions {
  int d_model = 4;
  std::string positions = "0,1,2,3,44";
  int decimals = 3;
  bool json = false;
  std::string svg, html;  // picture outputs, written atomically
};

// The picture shows at least this many positions, so the slow dimensions visibly turn.
constexpr int kMinPictureRows = 50;

std::vector<int> parse_positions(const std::string& list) {
  std::vector<int> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const long v = std::stol(item, &used);
      if (used != item.size() || v < 0 || v > 1000000) throw std::invalid_argument(item);
      out.push_back(static_cast<int>(v));
    } catch (const std::exception&) {
      throw UsageError("--positions: '" + item + "' is not a position (0 .. 1000000)");
    }
  }
  if (out.empty()) throw UsageError("--positions: give at least one position");
  return out;
}

void run(const PositionsOptions& o) {
  const std::vector<int> positions = parse_positions(o.positions);
  if (!o.svg.empty()) check_writable(o.svg);
  if (!o.html.empty()) check_writable(o.html);
  int max_pos = 0;
  for (int p : positions) max_pos = std::max(max_pos, p);
  if (!o.svg.empty() || !o.html.empty()) {
    const Mat<double> picture = sinusoid_table(std::max(max_pos + 1, kMinPictureRows), o.d_model);
    if (!o.svg.empty()) write_output_file(o.svg, positions_svg(picture, positions));
    if (!o.html.empty()) write_output_file(o.html, positions_html(picture, positions));
    for (const std::string* path : {&o.svg, &o.html}) {
      if (!path->empty() && *path != "-") spdlog::info("wrote {}", *path);
    }
  }
  const Mat<double> table = sinusoid_table(max_pos + 1, o.d_model);
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (int p : positions) {
      std::vector<double> row(table.row(p).data(), table.row(p).data() + o.d_model);
      rows.push_back({{"position", p}, {"values", row}});
    }
    std::printf("%s\n", nlohmann::json{{"d_model", o.d_model}, {"rows", rows}}.dump().c_str());
    return;
  }
  std::printf("pos");
  for (int d = 0; d < o.d_model; ++d) std::printf("\t%s%d", d % 2 ? "cos" : "sin", d);
  std::printf("\n");
  for (int p : positions) {
    std::printf("%d", p);
    for (int d = 0; d < o.d_model; ++d)
      std::printf("\t%s", format_fixed(table(p, d), o.decimals).c_str());
    std::printf("\n");
  }
}

}  // namespace

void add_positions_command(CLI::App& app) {
  auto opts = std::make_shared<PositionsOptions>();
  auto* cmd = app.add_subcommand("positions", "Print the sinusoidal positional-encoding table");
  cmd->add_option("--d-model", opts->d_model, "Model width")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--positions", opts->positions, "Comma-separated positions")
      ->capture_default_str();
  cmd->add_option("--decimals", opts->decimals, "Decimals to print")
      ->capture_default_str()
      ->check(CLI::Range(0, 17));
  cmd->add_flag("--json", opts->json, "Print one JSON object");
  cmd->add_option("--svg", opts->svg,
                  "Also draw the table (max(positions)+1 rows, at least 50) as an SVG heat map "
                  "with clock hands for the chosen positions");
  cmd->add_option("--html", opts->html, "The same picture in a self-contained HTML page");
  cmd->callback([opts] { run(*opts); });
}

}  // namespace router::app
