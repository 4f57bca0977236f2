// crumb_gen: writes the synthetic Crumb support-inbox dataset (train/valid/test/dev JSONL) from
// the phrase tables in data/crumb/phrases/*.tsv (crumb_phrases.h reads them). Deterministic: the
// same tables and seed give the same bytes on every platform, because all randomness comes from
// our own splitmix64 (never <random> distributions or std::shuffle, whose outputs differ between
// standard libraries). Standard library only.
//
//   crumb_gen --out DIR [--seed N] [--phrases DIR]
//
// Exit codes: 0 ok, 1 unexpected error, 2 bad command line, 3 bad phrase tables, 5 cannot write
// the output.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "crumb_phrases.h"

// CMake passes the source tree's data/crumb/phrases; elsewhere, the folder relative to the
// working directory.
#ifndef CRUMB_GEN_PHRASES_DIR
#define CRUMB_GEN_PHRASES_DIR "data/crumb/phrases"
#endif

namespace router::crumb {
namespace {

constexpr uint64_t kDefaultSeed = 20261130;
constexpr const char* kUsage =
    "usage: crumb_gen --out DIR [--seed N] [--phrases DIR]\n"
    "  (default phrases " CRUMB_GEN_PHRASES_DIR ", seed ";

// ---- Randomness ---------------------------------------------------------------------------------

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // splitmix64 (Steele, Lea, Flood 2014).
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n). The modulo bias (< n / 2^64) is irrelevant for data generation.
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
  bool chance(int per_mille) { return below(1000) < static_cast<size_t>(per_mille); }
  template <typename T>
  const T& pick(std::span<const T> items) {
    return items[below(items.size())];
  }

 private:
  uint64_t state_;
};

template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {  // Fisher-Yates, our own so it is portable
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// ---- Splits and held-out material ---------------------------------------------------------------

struct SplitSpec {
  const char* name;
  int per_label;  // every label gets exactly this many emails
  Use held;       // the held-out material it draws (kAll: none)
};
// dev comes last, so that adding it left the other three splits as they were.
constexpr SplitSpec kSplits[] = {
    {"train", 1200, kAll}, {"valid", 130, kAll}, {"test", 220, kHeld}, {"dev", 130, kDev}};

// How often test (or dev) draws from its held-out entries of a table (per mille), when the
// table has any. Names and localities are always held out; the rest mixes, so that test also
// checks the shared templates under new surroundings.
enum class Table { kName, kPlace, kProduct, kLetter, kTemplate, kFrame };
int held_share(Table t) {
  switch (t) {
    case Table::kName:
    case Table::kPlace:
      return 1000;
    case Table::kProduct:
      return 500;
    case Table::kLetter:
      return 500;
    case Table::kTemplate:
      return 350;
    case Table::kFrame:
      return 350;
  }
  return 0;
}

// Picks from the entries of `items` the split may use and `fits` accepts: train and valid see
// only kAll entries; test (held = kHeld) and dev (kDev) take one of their own held-out entries
// with probability held_share(table), else a kAll one.
template <typename T, typename Fits>
const T& pick_for(std::span<const T> items, Rng& rng, Use held, Table table, Fits fits) {
  bool any_held = false;
  for (const T& it : items) any_held = any_held || (it.use == held && fits(it));
  const Use want = (held != kAll && any_held && rng.chance(held_share(table))) ? held : kAll;
  std::vector<const T*> ok;
  for (const T& it : items)
    if (it.use == want && fits(it)) ok.push_back(&it);
  if (ok.empty()) throw std::logic_error("table has no entry for this split");
  return *ok[rng.below(ok.size())];
}
template <typename T>
const T& pick_for(std::span<const T> items, Rng& rng, Use held, Table table) {
  return pick_for(items, rng, held, table, [](const T&) { return true; });
}

const std::string& pick_text(std::span<const Entry> items, Rng& rng, Use held, Table table) {
  return pick_for(items, rng, held, table).text;
}

// ---- Placeholders -------------------------------------------------------------------------------

using Vars = std::map<std::string, std::string, std::less<>>;

// Replaces every {key} in `tmpl`; an unknown key is a bug in the tables, so it throws.
std::string fill(std::string_view tmpl, const Vars& vars) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] != '{') {
      out += tmpl[i++];
      continue;
    }
    const size_t close = tmpl.find('}', i);
    if (close == std::string_view::npos)
      throw std::logic_error("unclosed { in: " + std::string(tmpl));
    const std::string_view key = tmpl.substr(i + 1, close - i - 1);
    const auto it = vars.find(key);
    if (it == vars.end())
      throw std::logic_error("unknown {" + std::string(key) + "} in: " + std::string(tmpl));
    out += it->second;
    i = close + 1;
  }
  return out;
}

// Indian digit grouping is not needed below 1,00,000, so plain thousands commas are right.
std::string with_commas(int n) {
  std::string s = std::to_string(n);
  if (s.size() > 3) s.insert(s.size() - 3, ",");
  return s;
}

std::string format_amount(int rupees, int style) {
  switch (style) {
    case 0:
      return "₹" + with_commas(rupees);
    case 1:
      return "Rs. " + with_commas(rupees);
    case 2:
      return "Rs " + with_commas(rupees);
    case 3:
      return "INR " + std::to_string(rupees);
    default:
      return "Rs." + std::to_string(rupees);
  }
}

// Two different entries of a plain string pool, the second later in the list when `ordered`.
std::pair<std::string, std::string> two_of(std::span<const std::string> pool, Rng& rng,
                                           bool ordered) {
  size_t a = rng.below(pool.size());
  size_t b = rng.below(pool.size() - 1);
  if (b >= a) ++b;
  if (ordered && b < a) std::swap(a, b);
  return {pool[a], pool[b]};
}

const Product& pick_product(const Phrases& ph, Rng& rng, Use held, bool needs_cake) {
  return pick_for(std::span<const Product>(ph.products), rng, held, Table::kProduct,
                  [&](const Product& p) { return !needs_cake || p.kind == Kind::kCake; });
}

// Everything an email may mention, drawn once per email (or once per pair).
Vars make_vars(const Phrases& ph, Rng& rng, Use held, bool needs_cake) {
  Vars v;
  const std::string first = pick_text(ph.first_names, rng, held, Table::kName);
  const std::string last = pick_text(ph.surnames, rng, held, Table::kName);
  v["first"] = first;
  v["name"] = first + " " + last;
  const Entry& place = pick_for(std::span<const Entry>(ph.localities), rng, held, Table::kPlace);
  v["locality"] = place.text;
  const Entry* place2 = &place;
  while (place2 == &place)
    place2 = &pick_for(std::span<const Entry>(ph.localities), rng, held, Table::kPlace);
  v["locality2"] = place2->text;
  v["address"] = pick_text(ph.addresses, rng, held, Table::kPlace);

  const Product& p = pick_product(ph, rng, held, needs_cake);
  v["product"] = p.name;
  v["a_product"] = p.a_name;
  v["short"] = p.short_name;
  v["It"] = p.plural ? "They" : "It";
  v["it"] = p.plural ? "them" : "it";
  v["they"] = p.plural ? "they" : "it";
  v["was"] = p.plural ? "were" : "was";
  v["is"] = p.plural ? "are" : "is";
  v["new_short"] = std::string(p.plural ? "new " : "a new ") + p.short_name;
  v["fresh_short"] = std::string(p.plural ? "fresh " : "a fresh ") + p.short_name;

  const int style = static_cast<int>(rng.below(5));
  const int price =
      (p.price_lo + static_cast<int>(rng.below((p.price_hi - p.price_lo) / 50 + 1)) * 50);
  v["price"] = format_amount(price, style);
  v["fee"] = format_amount(rng.pick(std::span<const int>(ph.fees)), style);

  const int digits = 10000 + static_cast<int>(rng.below(90000));
  const int order_style = static_cast<int>(rng.below(10));
  v["order"] = (order_style < 7   ? "#CR-"
                : order_style < 9 ? "CR-"
                                  : "#CR") +
               std::to_string(digits);

  const auto [day, day2] = two_of(ph.days, rng, false);
  v["day"] = day;
  v["day2"] = day2;
  const auto [time, time2] = two_of(ph.times, rng, true);
  v["time"] = time;
  v["time2"] = time2;
  const auto [flavour, flavour2] = two_of(ph.flavours, rng, false);
  v["flavour"] = flavour;
  v["flavour2"] = flavour2;
  const auto [size, size2] = two_of(ph.sizes, rng, true);
  v["size"] = size;
  v["size2"] = size2;
  v["late"] = rng.pick(std::span<const std::string>(ph.late));
  v["delivered"] = rng.pick(std::span<const std::string>(ph.delivered_when));
  v["placed"] = rng.pick(std::span<const std::string>(ph.placed_when));
  v["n"] = rng.pick(std::span<const std::string>(ph.headcounts));
  v["qdate"] = rng.pick(std::span<const std::string>(ph.quote_dates));
  v["occasion"] = pick_text(ph.occasions, rng, held, Table::kTemplate);
  v["message"] = pick_text(ph.cake_messages, rng, held, Table::kTemplate);
  return v;
}

// ---- The email around the request ---------------------------------------------------------------

// kShort is the request alone, as typed on a phone. Short emails also make word order easy to
// learn: the same constructions then carry over to the long emails.
enum class Layout { kLetter, kOneLine, kBare, kShort };

// Everything but the request sentence. Both sides of a pair render the same Shell.
struct Shell {
  Layout layout = Layout::kLetter;
  std::string subject, greeting, signoff, sign_name, signature, quote;
  std::vector<std::string> before, after;  // sentences around the request
  bool request_first = false;              // request before the story
  bool break_before_request = false;       // paragraph break before the request (letters)
  uint64_t typo_draw = 0;  // 0: no typos; else picks among the typo words the email contains
  bool lowercase = false;
};

std::span<const Entry> openers_for(const Phrases& ph, Situation s) {
  switch (s) {
    case Situation::kDelivered:
      return ph.openers_delivered;
    case Situation::kUpcoming:
      return ph.openers_upcoming;
    case Situation::kDueToday:
      return ph.openers_due_today;
    case Situation::kNone:
      return ph.openers_none;
  }
  return {};
}
std::span<const Entry> subjects_for(const Phrases& ph, Situation s) {
  switch (s) {
    case Situation::kDelivered:
      return ph.subjects_delivered;
    case Situation::kUpcoming:
    case Situation::kDueToday:
      return ph.subjects_pending;
    case Situation::kNone:
      return ph.subjects_none;
  }
  return {};
}
std::span<const Entry> fillers_for(const Phrases& ph, Situation s, Tone tone) {
  switch (s) {
    case Situation::kDelivered:
      return tone == Tone::kUnhappy ? ph.fillers_unhappy : ph.fillers_delivered;
    case Situation::kUpcoming:
    case Situation::kDueToday:
      return ph.fillers_pending;
    case Situation::kNone:
      return ph.fillers_none;
  }
  return {};
}

struct ShellOptions {
  Situation situation;
  std::span<const Entry> stories;
  Tone tone;
  bool soft_only;  // no pushy closing lines (feedback is involved)
  bool stack;      // a second story may follow the first
};

Shell make_shell(const Phrases& ph, Rng& rng, Use held, const Vars& v, const ShellOptions& o) {
  Shell sh;
  const size_t layout = rng.below(100);
  sh.layout = layout < 45   ? Layout::kLetter
              : layout < 57 ? Layout::kOneLine
              : layout < 65 ? Layout::kBare
                            : Layout::kShort;

  if (sh.layout == Layout::kLetter && rng.chance(100))
    sh.subject = fill(pick_text(subjects_for(ph, o.situation), rng, held, Table::kLetter), v);
  if (sh.layout != Layout::kBare) sh.greeting = pick_text(ph.greetings, rng, held, Table::kLetter);
  sh.signoff = pick_text(ph.signoffs, rng, held, Table::kLetter);
  sh.sign_name = (sh.layout == Layout::kLetter && rng.chance(450)) ? v.at("name") : v.at("first");

  // Opener, maybe a filler, one or two stories.
  if (o.situation != Situation::kNone ? rng.chance(880) : rng.chance(450))
    sh.before.push_back(
        fill(pick_text(openers_for(ph, o.situation), rng, held, Table::kTemplate), v));
  const auto fillers = fillers_for(ph, o.situation, o.tone);
  if (!fillers.empty() && rng.chance(200))
    sh.before.push_back(fill(pick_text(fillers, rng, held, Table::kTemplate), v));
  const std::string story = fill(pick_text(o.stories, rng, held, Table::kTemplate), v);
  sh.before.push_back(story);
  if (o.stack && o.stories.size() > 2 && rng.chance(250)) {
    for (int tries = 0; tries < 8; ++tries) {
      std::string second = fill(pick_text(o.stories, rng, held, Table::kTemplate), v);
      if (second != story) {
        sh.before.push_back(std::move(second));
        break;
      }
    }
  }

  // Closing line, maybe with an emoji.
  if (rng.chance(450)) {
    const bool push = !o.soft_only && rng.chance(500);
    sh.after.push_back(
        pick_text(push ? ph.push_extras : ph.soft_extras, rng, held, Table::kLetter));
  }
  if (rng.chance(90)) {
    std::span<const std::string> emoji = ph.emoji_neutral;
    if (o.tone == Tone::kUnhappy) emoji = ph.emoji_unhappy;
    if (o.tone == Tone::kHappy) emoji = ph.emoji_happy;
    if (sh.after.empty()) sh.after.push_back("");
    sh.after.back() += (sh.after.back().empty() ? "" : " ") + rng.pick(emoji);
  }

  sh.request_first = rng.chance(120);
  sh.break_before_request = sh.layout == Layout::kLetter && rng.chance(300);
  if (sh.layout == Layout::kLetter && rng.chance(90))
    sh.signature = fill(pick_text(ph.signatures, rng, held, Table::kLetter), v);
  if (sh.layout == Layout::kLetter && rng.chance(70)) {
    const bool long_quote = rng.chance(400);
    sh.quote =
        fill(pick_text(long_quote ? ph.long_quotes : ph.quotes, rng, held, Table::kLetter), v);
  }
  if (rng.chance(120)) sh.typo_draw = rng.next() | 1;
  sh.lowercase = rng.chance(40);
  return sh;
}

bool is_ascii_punct(unsigned char c) { return c < 0x80 && std::ispunct(c); }
bool is_word_byte(unsigned char c) { return c >= 0x80 || std::isalnum(c); }

// Whole-word replacement: "the" does not touch "there".
std::string replace_word(const std::string& text, std::string_view word, std::string_view with) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, word.size(), word) == 0 && (i == 0 || !is_word_byte(text[i - 1])) &&
        (i + word.size() == text.size() || !is_word_byte(text[i + word.size()]))) {
      out += with;
      i += word.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

// One or two typo substitutions among the words the text contains. Both sides of a pair contain
// the same words, so they get the same typos.
std::string add_typos(std::string text, uint64_t draw, std::span<const Typo> typos) {
  std::vector<const Typo*> present;
  for (const Typo& t : typos)
    if (replace_word(text, t.word, t.typo) != text) present.push_back(&t);
  if (present.empty()) return text;
  const Typo* first = present[draw % present.size()];
  text = replace_word(text, first->word, first->typo);
  if ((draw >> 32) % 3 == 0) {
    const Typo* second = present[(draw >> 40) % present.size()];
    text = replace_word(text, second->word, second->typo);
  }
  return text;
}

std::string join(const std::vector<std::string>& sentences) {
  std::string out;
  for (const std::string& s : sentences) {
    if (s.empty()) continue;
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

std::string render(const Shell& sh, const std::string& request, std::span<const Typo> typos) {
  const std::string story = join(sh.before), closing = join(sh.after);
  std::string body;
  if (sh.request_first) {
    body = join({request, story, closing});
  } else if (sh.break_before_request) {
    body = story + "\n\n" + join({request, closing});
  } else {
    body = join({story, request, closing});
  }

  std::string text;
  switch (sh.layout) {
    case Layout::kLetter:
      if (!sh.subject.empty()) text += sh.subject + "\n\n";
      text += sh.greeting + "\n\n" + body + "\n\n" + sh.signoff + "\n" + sh.sign_name;
      if (!sh.signature.empty()) text += "\n\n" + sh.signature;
      break;
    case Layout::kOneLine:
      text = sh.greeting + " " + body + " " + sh.signoff + " " + sh.sign_name;
      break;
    case Layout::kBare:
      text = body + "\n- " + sh.sign_name;
      break;
    case Layout::kShort:
      text = request;
      break;
  }
  if (sh.typo_draw != 0) text = add_typos(text, sh.typo_draw, typos);
  if (sh.lowercase)
    for (char& c : text)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  // The quoted support message is not the customer's writing: no typos, no lowercasing.
  if (!sh.quote.empty() && sh.layout != Layout::kShort) text += "\n\n" + sh.quote;
  return text;
}

// ---- Tokens, for the pair invariant -------------------------------------------------------------

// Whitespace separates tokens; every ASCII punctuation character is a token of its own; anything
// else (letters, digits, UTF-8 bytes) joins into words. tests/test_crumb_data.cc splits the same
// way. Without split_punct, punctuation stays on its word, as fastText reads text.
std::vector<std::string> tokens(std::string_view text, bool split_punct = true) {
  std::vector<std::string> out;
  std::string word;
  for (unsigned char c : text) {
    const bool punct = split_punct && is_ascii_punct(c);
    if (std::isspace(c) || punct) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
      if (punct) out.emplace_back(1, static_cast<char>(c));
    } else {
      word += static_cast<char>(c);
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// Every run of n consecutive tokens, joined with a space, sorted: equal for two texts exactly when
// they hold the same n-grams the same number of times.
std::vector<std::string> sorted_ngrams(const std::vector<std::string>& toks, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i + n <= toks.size(); ++i) {
    std::string g = toks[i];
    for (size_t j = 1; j < n; ++j) g += ' ' + toks[i + j];
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- Emails -------------------------------------------------------------------------------------

struct Record {
  std::string text;
  Label label;
  std::string pair;  // empty when unpaired
};

class SplitBuilder {
 public:
  SplitBuilder(const Phrases& ph, const SplitSpec& spec, uint64_t seed,
               std::unordered_set<std::string>& seen)
      : ph_(ph), spec_(spec), rng_(seed), seen_(seen) {}

  std::vector<Record> build() {
    const int total = spec_.per_label * kNumLabels;
    std::array<int, kNumLabels> left;
    left.fill(spec_.per_label);
    int pair_no = 0;
    for (const PairFamily& f : ph_.families) {
      const int n = (total * f.pairs_per_1000 + 500) / 1000;
      for (int i = 0; i < n; ++i) add_pair(f, ++pair_no, left);
    }
    for (int label = 0; label < kNumLabels; ++label) {
      if (left[label] < 0) throw std::logic_error("pairs exceed the per-label budget");
      for (int i = 0; i < left[label]; ++i) add_single(static_cast<Label>(label));
    }
    shuffle(records_, rng_);
    return std::move(records_);
  }

 private:
  bool is_new(const std::string& text) const { return !seen_.contains(text); }

  void add_pair(const PairFamily& f, int pair_no, std::array<int, kNumLabels>& left) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      const Vars v = make_vars(ph_, rng_, spec_.held, f.needs_cake);
      const bool balanced = rng_.chance(500);
      const Frame& frame =
          pick_for(balanced ? f.balanced_frames : f.frames, rng_, spec_.held, Table::kFrame);
      const std::string a = fill(pick_text(f.phrases_a, rng_, spec_.held, Table::kTemplate), v);
      const std::string b = fill(pick_text(f.phrases_b, rng_, spec_.held, Table::kTemplate), v);
      // ab: phrase a in {A}; ba: swapped.
      const std::string ab = fill(frame.text, {{"A", a}, {"B", b}});
      const std::string ba = fill(frame.text, {{"A", b}, {"B", a}});
      const Label label_ab = frame.first_wins ? f.label_a : f.label_b;
      const Label label_ba = frame.first_wins ? f.label_b : f.label_a;

      const bool soft = f.label_a == kFeedback || f.label_b == kFeedback;
      const bool unhappy =
          f.situation == Situation::kDelivered || f.situation == Situation::kDueToday;
      const Shell sh = make_shell(
          ph_, rng_, spec_.held, v,
          {f.situation, f.stories, unhappy ? Tone::kUnhappy : Tone::kNeutral, soft, false});
      std::string t1 = render(sh, ab, ph_.typos), t2 = render(sh, ba, ph_.typos);
      if (!is_new(t1) || !is_new(t2) || t1 == t2) continue;
      check_pair(t1, t2, f.name, balanced);

      const std::string id = std::string("crumb-") + spec_.name + "-p" + pad(pair_no, 4);
      seen_.insert(t1);
      seen_.insert(t2);
      records_.push_back({std::move(t1), label_ab, id});
      records_.push_back({std::move(t2), label_ba, id});
      --left[label_ab];
      --left[label_ba];
      return;
    }
    throw std::logic_error("cannot make a new pair for " + f.name);
  }

  void add_single(Label label) {
    const std::span<const Mode> modes = ph_.modes[label];
    int total_weight = 0;
    for (const Mode& m : modes) total_weight += m.weight;
    for (int attempt = 0; attempt < 200; ++attempt) {
      int r = static_cast<int>(rng_.below(static_cast<size_t>(total_weight)));
      const Mode* mode = &modes[0];
      for (const Mode& m : modes) {
        if (r < m.weight) {
          mode = &m;
          break;
        }
        r -= m.weight;
      }
      const Vars v = make_vars(ph_, rng_, spec_.held, mode->needs_cake);
      const std::string request =
          fill(pick_text(mode->requests, rng_, spec_.held, Table::kTemplate), v);
      const Shell sh =
          make_shell(ph_, rng_, spec_.held, v,
                     {mode->situation, mode->stories, mode->tone, label == kFeedback, mode->stack});
      std::string text = render(sh, request, ph_.typos);
      if (!is_new(text)) continue;
      seen_.insert(text);
      records_.push_back({std::move(text), label, ""});
      return;
    }
    throw std::logic_error(std::string("cannot make a new email for ") + kLabelNames[label]);
  }

  // A pair must hold the same tokens in another order, and a balanced one the same bigrams too,
  // both with punctuation split off and split on whitespace alone (as fastText reads text); a
  // table typo would silently break that.
  static void check_pair(const std::string& t1, const std::string& t2, const std::string& family,
                         bool balanced) {
    const auto fail = [&](const char* what) {
      throw std::logic_error(what + (": " + family) + "\n" + t1 + "\n" + t2);
    };
    const std::vector<std::string> a = tokens(t1), b = tokens(t2);
    if (a == b) fail("pair has the same token order");
    if (sorted_ngrams(a, 1) != sorted_ngrams(b, 1)) fail("pair tokens differ");
    if (balanced && (sorted_ngrams(a, 2) != sorted_ngrams(b, 2) ||
                     sorted_ngrams(tokens(t1, false), 2) != sorted_ngrams(tokens(t2, false), 2)))
      fail("balanced pair bigrams differ");
  }

  static std::string pad(int n, int width) {
    std::string s = std::to_string(n);
    return std::string(width > static_cast<int>(s.size()) ? width - s.size() : 0, '0') + s;
  }

  const Phrases& ph_;
  const SplitSpec& spec_;
  Rng rng_;
  std::unordered_set<std::string>& seen_;
  std::vector<Record> records_;
};

// ---- JSON output --------------------------------------------------------------------------------

void append_json_string(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
}

std::string to_jsonl(const std::vector<Record>& records, const std::string& split) {
  std::string out;
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::string id = std::to_string(i + 1);
    id = "crumb-" + split + "-" + std::string(id.size() < 5 ? 5 - id.size() : 0, '0') + id;
    out += "{\"id\": ";
    append_json_string(out, id);
    out += ", \"text\": ";
    append_json_string(out, r.text);
    out += ", \"label\": ";
    append_json_string(out, kLabelNames[r.label]);
    out += ", \"pair\": ";
    if (r.pair.empty()) {
      out += "null";
    } else {
      append_json_string(out, r.pair);
    }
    out += "}\n";
  }
  return out;
}

struct IoFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Written beside the target and renamed into place, so a reader never sees half a file.
void write_atomically(const std::filesystem::path& path, const std::string& bytes) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw IoFailure("cannot write " + tmp.string());
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) throw IoFailure("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec)
    throw IoFailure("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
}

// ---- Command line -------------------------------------------------------------------------------

struct UsageFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::filesystem::path out;
  std::filesystem::path phrases = CRUMB_GEN_PHRASES_DIR;
  uint64_t seed = kDefaultSeed;
  bool help = false;
};

Options parse_args(int argc, char** argv) {
  Options o;
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--out" || arg == "--seed" || arg == "--phrases") && i + 1 >= argc)
      throw UsageFailure(std::string(arg) + " needs a value");
    if (arg == "--out") {
      o.out = argv[++i];
      have_out = true;
    } else if (arg == "--phrases") {
      o.phrases = argv[++i];
    } else if (arg == "--seed") {
      const std::string s = argv[++i];
      if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
        throw UsageFailure("--seed must be a non-negative integer, got '" + s + "'");
      o.seed = std::stoull(s);
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
      return o;
    } else {
      throw UsageFailure("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (!have_out) throw UsageFailure("--out DIR is required");
  return o;
}

uint64_t mix(uint64_t seed, uint64_t stream) {
  Rng r(seed ^ (stream * 0xD1B54A32D192ED03ull));
  return r.next();
}

int run(const Options& o) {
  const Phrases ph = load_phrases(o.phrases);
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec || !std::filesystem::is_directory(o.out))
    throw IoFailure("cannot create output directory " + o.out.string());

  std::cerr << "crumb_gen: seed " << o.seed << ", phrases " << o.phrases.string() << "\n";
  std::unordered_set<std::string> seen;  // texts across all splits: no duplicates, no test leaks
  uint64_t stream = 0;
  // Every split is built before any is written: a table error found in the last split must not
  // leave the first ones regenerated and the rest old.
  std::vector<std::vector<Record>> splits;
  for (const SplitSpec& spec : kSplits) {
    splits.push_back(SplitBuilder(ph, spec, mix(o.seed, ++stream), seen).build());
  }
  for (size_t i = 0; i < splits.size(); ++i) {
    const SplitSpec& spec = kSplits[i];
    const std::vector<Record>& records = splits[i];
    size_t paired = 0;
    for (const Record& r : records) paired += r.pair.empty() ? 0 : 1;
    write_atomically(o.out / (std::string(spec.name) + ".jsonl"), to_jsonl(records, spec.name));
    std::cerr << "crumb_gen: " << spec.name << ": " << records.size() << " emails, " << paired
              << " in pairs (" << (1000 * paired / records.size()) / 10.0 << "%)\n";
  }
  return 0;
}

}  // namespace
}  // namespace router::crumb

int main(int argc, char** argv) {
  using namespace router::crumb;
  try {
    const Options o = parse_args(argc, argv);
    if (o.help) {
      std::cout << kUsage << kDefaultSeed << ")\n";
      return 0;
    }
    return run(o);
  } catch (const UsageFailure& e) {
    std::cerr << "crumb_gen: " << e.what() << "\n" << kUsage << kDefaultSeed << ")\n";
    return 2;
  } catch (const PhraseError& e) {
    std::cerr << "crumb_gen: " << e.what() << "\n";
    return 3;
  } catch (const IoFailure& e) {
    std::cerr << "crumb_gen: " << e.what() << "\n";
    return 5;
  } catch (const std::exception& e) {
    std::cerr << "crumb_gen: " << e.what() << "\n";
    return 1;
  }
}
