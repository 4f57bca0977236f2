#include "crumb_phrases.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

namespace router::crumb {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kUseNames[] = {"all", "held", "dev"};
constexpr std::string_view kSituationNames[] = {"delivered", "upcoming", "due_today", "none"};
constexpr std::string_view kToneNames[] = {"unhappy", "happy", "neutral"};
constexpr std::string_view kKindNames[] = {"cake", "small_bakes", "sweets"};
constexpr auto kLabelWords = [] {
  std::array<std::string_view, kNumLabels> words{};
  for (int i = 0; i < kNumLabels; ++i) words[i] = kLabelNames[i];
  return words;
}();
constexpr int kMaxPrice = 1'000'000;  // rupees

Use read_use(const TsvFile& f, const TsvRow& row) {
  return static_cast<Use>(f.choice(row, "use", kUseNames));
}
Situation read_situation(const TsvFile& f, const TsvRow& row) {
  return static_cast<Situation>(f.choice(row, "situation", kSituationNames));
}
Label read_label(const TsvFile& f, const TsvRow& row, std::string_view column) {
  return static_cast<Label>(f.choice(row, column, kLabelWords));
}

// The rows of a file whose first column is `table`, by table, and the line each table starts on.
// A table's rows must be together: one that resumes after another table is an error.
template <typename T>
struct Grouped {
  NamedTables<T> tables;
  std::map<std::string, int, std::less<>> line;
};

template <typename Read>
auto group(const TsvFile& f, Read read) {
  Grouped<decltype(read(f.rows().front()))> out;
  std::string current;
  for (const TsvRow& row : f.rows()) {
    const std::string& name = f.field(row, "table");
    if (name != current) {
      if (out.line.contains(name))
        f.fail(row.line, "table " + name + " resumes here; its rows (from line " +
                             std::to_string(out.line.at(name)) + ") must be together");
      out.line[name] = row.line;
      current = name;
    }
    out.tables[name].push_back(read(row));
  }
  return out;
}

// Every table with a use column needs an entry that train draws.
template <typename T>
void need_all_entries(const TsvFile& f, const Grouped<T>& g) {
  for (const auto& [name, rows] : g.tables)
    if (std::none_of(rows.begin(), rows.end(), [](const T& e) { return e.use == kAll; }))
      f.fail(g.line.at(name), "table " + name + " has no entry with use all");
}

// Moves the tables of a file whose table names the generator fixes into their places: every
// table must be one of `slots`, and every slot must be filled.
template <typename T>
struct Slot {
  std::string_view name;
  std::vector<T> Phrases::*member;
};

template <typename T>
void fill_slots(const TsvFile& f, Grouped<T>& g, std::span<const Slot<T>> slots, Phrases& out) {
  std::string names;
  for (const Slot<T>& s : slots) names += (names.empty() ? "" : ", ") + std::string(s.name);
  for (const auto& table : g.line) {
    const auto& name = table.first;  // a named copy: lambdas cannot capture structured bindings
    if (std::none_of(slots.begin(), slots.end(),
                     [&](const Slot<T>& s) { return s.name == name; })) {
      f.fail(table.second, "unknown table " + name + " (this file holds " + names + ")");
    }
  }
  for (const Slot<T>& s : slots) {
    const auto it = g.tables.find(s.name);
    if (it == g.tables.end()) f.fail(0, "no table " + std::string(s.name));
    out.*s.member = std::move(it->second);
  }
}

// A table named in `column` of a modes.tsv or families.tsv row, marked as used.
template <typename T>
std::span<const T> refer(const TsvFile& f, const TsvRow& row, std::string_view column,
                         const NamedTables<T>& tables, const std::string& file,
                         std::set<std::string, std::less<>>& used) {
  const std::string& name = f.field(row, column);
  const auto it = tables.find(name);
  if (it == tables.end())
    f.fail(row.line, "column " + std::string(column) + ": no table " + name + " in " + file);
  used.insert(name);
  return it->second;
}

template <typename T>
void need_used(const TsvFile& f, const Grouped<T>& g,
               const std::set<std::string, std::less<>>& used, const std::string& by) {
  for (const auto& [name, line] : g.line)
    if (!used.contains(name)) f.fail(line, "table " + name + " is not used by " + by);
}

Entry read_entry(const TsvFile& f, const TsvRow& row) {
  return {read_use(f, row), f.field(row, "text")};
}

// ---- The files ----------------------------------------------------------------------------------

void read_customers(const fs::path& dir, Phrases& out) {
  static constexpr Slot<Entry> kSlots[] = {
      {"first_names", &Phrases::first_names}, {"surnames", &Phrases::surnames},
      {"localities", &Phrases::localities},   {"addresses", &Phrases::addresses},
      {"occasions", &Phrases::occasions},     {"cake_messages", &Phrases::cake_messages}};
  const TsvFile f(dir / "customers.tsv", {"table", "use", "text"});
  auto g = group(f, [&](const TsvRow& row) { return read_entry(f, row); });
  need_all_entries(f, g);
  fill_slots<Entry>(f, g, kSlots, out);
  // An email's second locality must differ from its first, drawn with the same use.
  for (const Use use : {kAll, kHeld, kDev}) {
    const auto n = std::count_if(out.localities.begin(), out.localities.end(),
                                 [&](const Entry& e) { return e.use == use; });
    if (n == 1)
      f.fail(g.line.at("localities"), "table localities has one entry with use " +
                                          std::string(kUseNames[static_cast<int>(use)]) +
                                          "; it needs none or at least two");
  }
}

void read_products(const fs::path& dir, Phrases& out) {
  const TsvFile f(dir / "products.tsv",
                  {"use", "kind", "name", "a_name", "short", "plural", "price_lo", "price_hi"});
  for (const TsvRow& row : f.rows()) {
    Product p{read_use(f, row),
              static_cast<Kind>(f.choice(row, "kind", kKindNames)),
              f.field(row, "name"),
              f.field(row, "a_name"),
              f.field(row, "short"),
              f.yes_no(row, "plural"),
              f.number(row, "price_lo", 1, kMaxPrice),
              f.number(row, "price_hi", 1, kMaxPrice)};
    if (p.price_hi < p.price_lo) f.fail(row.line, "price_hi is below price_lo");
    out.products.push_back(std::move(p));
  }
  const auto train_cake = [](const Product& p) { return p.use == kAll && p.kind == Kind::kCake; };
  if (std::none_of(out.products.begin(), out.products.end(), train_cake))
    f.fail(0, "no cake with use all (emails that need a cake draw one in every split)");
}

void read_values(const fs::path& dir, Phrases& out) {
  static constexpr Slot<std::string> kSlots[] = {{"flavours", &Phrases::flavours},
                                                 {"sizes", &Phrases::sizes},
                                                 {"times", &Phrases::times},
                                                 {"days", &Phrases::days},
                                                 {"late", &Phrases::late},
                                                 {"delivered_when", &Phrases::delivered_when},
                                                 {"placed_when", &Phrases::placed_when},
                                                 {"headcounts", &Phrases::headcounts},
                                                 {"quote_dates", &Phrases::quote_dates},
                                                 {"emoji_neutral", &Phrases::emoji_neutral},
                                                 {"emoji_unhappy", &Phrases::emoji_unhappy},
                                                 {"emoji_happy", &Phrases::emoji_happy}};
  const TsvFile f(dir / "values.tsv", {"table", "text"});
  auto g = group(f, [&](const TsvRow& row) {
    if (f.field(row, "table") == "fees") out.fees.push_back(f.number(row, "text", 1, kMaxPrice));
    return f.field(row, "text");
  });
  if (out.fees.empty()) f.fail(0, "no table fees");
  g.tables.erase("fees");
  g.line.erase("fees");
  fill_slots<std::string>(f, g, kSlots, out);
  // These give an email two different values ({day} and {day2}, ...).
  for (const auto& [name, pool] : {std::pair{"flavours", &out.flavours},
                                   {"sizes", &out.sizes},
                                   {"times", &out.times},
                                   {"days", &out.days}})
    if (pool->size() < 2)
      f.fail(g.line.at(name), "table " + std::string(name) + " needs at least two entries");
}

void read_letters(const fs::path& dir, Phrases& out) {
  static constexpr Slot<Entry> kSlots[] = {{"greetings", &Phrases::greetings},
                                           {"signoffs", &Phrases::signoffs},
                                           {"subjects_delivered", &Phrases::subjects_delivered},
                                           {"subjects_pending", &Phrases::subjects_pending},
                                           {"subjects_none", &Phrases::subjects_none},
                                           {"openers_delivered", &Phrases::openers_delivered},
                                           {"openers_upcoming", &Phrases::openers_upcoming},
                                           {"openers_due_today", &Phrases::openers_due_today},
                                           {"openers_none", &Phrases::openers_none},
                                           {"fillers_delivered", &Phrases::fillers_delivered},
                                           {"fillers_unhappy", &Phrases::fillers_unhappy},
                                           {"fillers_pending", &Phrases::fillers_pending},
                                           {"fillers_none", &Phrases::fillers_none},
                                           {"soft_extras", &Phrases::soft_extras},
                                           {"push_extras", &Phrases::push_extras},
                                           {"quotes", &Phrases::quotes},
                                           {"long_quotes", &Phrases::long_quotes},
                                           {"signatures", &Phrases::signatures}};
  const TsvFile f(dir / "letters.tsv", {"table", "use", "text"});
  auto g = group(f, [&](const TsvRow& row) { return read_entry(f, row); });
  need_all_entries(f, g);
  fill_slots<Entry>(f, g, kSlots, out);
}

void read_typos(const fs::path& dir, Phrases& out) {
  const TsvFile f(dir / "typos.tsv", {"word", "typo"});
  for (const TsvRow& row : f.rows())
    out.typos.push_back({f.field(row, "word"), f.field(row, "typo")});
}

void read_singles(const fs::path& dir, Phrases& out) {
  const TsvFile tables(dir / "singles.tsv", {"table", "use", "text"});
  auto g = group(tables, [&](const TsvRow& row) { return read_entry(tables, row); });
  need_all_entries(tables, g);
  out.single_tables = std::move(g.tables);

  const TsvFile f(dir / "modes.tsv", {"label", "weight", "situation", "needs_cake", "tone", "stack",
                                      "stories", "requests"});
  std::set<std::string, std::less<>> used;
  for (const TsvRow& row : f.rows()) {
    const Label label = read_label(f, row, "label");
    out.modes[label].push_back(
        {f.number(row, "weight", 1, 1000), read_situation(f, row), f.yes_no(row, "needs_cake"),
         static_cast<Tone>(f.choice(row, "tone", kToneNames)), f.yes_no(row, "stack"),
         refer(f, row, "stories", out.single_tables, "singles.tsv", used),
         refer(f, row, "requests", out.single_tables, "singles.tsv", used)});
  }
  for (int label = 0; label < kNumLabels; ++label)
    if (out.modes[label].empty()) f.fail(0, std::string("no mode for ") + kLabelNames[label]);
  need_used(tables, g, used, "any mode in modes.tsv");
}

void read_pairs(const fs::path& dir, Phrases& out) {
  const TsvFile phrases(dir / "pairs.tsv", {"table", "use", "text"});
  auto pg = group(phrases, [&](const TsvRow& row) { return read_entry(phrases, row); });
  need_all_entries(phrases, pg);
  out.pair_tables = std::move(pg.tables);

  const TsvFile frames(dir / "frames.tsv", {"table", "use", "first_wins", "text"});
  auto fg = group(frames, [&](const TsvRow& row) {
    return Frame{read_use(frames, row), frames.yes_no(row, "first_wins"),
                 frames.field(row, "text")};
  });
  need_all_entries(frames, fg);
  out.frame_tables = std::move(fg.tables);

  const TsvFile f(dir / "families.tsv",
                  {"name", "pairs_per_1000", "situation", "needs_cake", "label_a", "label_b",
                   "stories", "phrases_a", "phrases_b", "frames", "balanced_frames"});
  std::set<std::string, std::less<>> used_phrases, used_frames;
  for (const TsvRow& row : f.rows()) {
    const std::string& name = f.field(row, "name");
    for (const PairFamily& earlier : out.families)
      if (earlier.name == name) f.fail(row.line, "a second family " + name);
    PairFamily family{
        name,
        f.number(row, "pairs_per_1000", 0, 1000),
        read_situation(f, row),
        f.yes_no(row, "needs_cake"),
        read_label(f, row, "label_a"),
        read_label(f, row, "label_b"),
        refer(f, row, "stories", out.pair_tables, "pairs.tsv", used_phrases),
        refer(f, row, "phrases_a", out.pair_tables, "pairs.tsv", used_phrases),
        refer(f, row, "phrases_b", out.pair_tables, "pairs.tsv", used_phrases),
        refer(f, row, "frames", out.frame_tables, "frames.tsv", used_frames),
        refer(f, row, "balanced_frames", out.frame_tables, "frames.tsv", used_frames)};
    if (family.label_a == family.label_b) f.fail(row.line, "label_a and label_b are the same");
    out.families.push_back(std::move(family));
  }
  need_used(phrases, pg, used_phrases, "any family in families.tsv");
  need_used(frames, fg, used_frames, "any family in families.tsv");
}

}  // namespace

Phrases load_phrases(const fs::path& dir) {
  Phrases out;
  read_customers(dir, out);
  read_products(dir, out);
  read_values(dir, out);
  read_letters(dir, out);
  read_typos(dir, out);
  read_singles(dir, out);
  read_pairs(dir, out);
  return out;
}

}  // namespace router::crumb
