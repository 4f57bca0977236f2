// The Crumb generator's phrase tables, read from data/crumb/phrases/*.tsv (that folder's README.md
// describes each file). The types are here; the text, the held-out marks (use) and which stories,
// requests and frames go together are all in the files. load_phrases checks every value and every
// reference between tables, so the generator can draw from a loaded Phrases without checking.
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "tsv_file.h"

namespace router::crumb {

// The eight labels, in the order the issue fixes; the files name them so.
enum Label : int {
  kRefundItem,
  kRefundDeliveryFee,
  kReplaceItem,
  kCancelOrder,
  kChangeOrder,
  kOrderStatus,
  kFeedback,
  kGeneralInquiry,
  kNumLabels
};
inline constexpr const char* kLabelNames[kNumLabels] = {
    "refund_item",  "refund_delivery_fee", "replace_item", "cancel_order",
    "change_order", "order_status",        "feedback",     "general_inquiry"};

// Which splits may draw an entry (the use column): all, held (test only) or dev (dev only).
enum class Use : unsigned char { kAll, kHeld, kDev };
inline constexpr Use kAll = Use::kAll;
inline constexpr Use kHeld = Use::kHeld;
inline constexpr Use kDev = Use::kDev;

struct Entry {
  Use use;
  std::string text;
};

// Where the order stands when the customer writes; picks the opener and subject lines.
enum class Situation : unsigned char { kDelivered, kUpcoming, kDueToday, kNone };
enum class Tone : unsigned char { kUnhappy, kHappy, kNeutral };
// Cakes take a message, a flavour, a size and an eggless switch; the other kinds do not.
enum class Kind : unsigned char { kCake, kSmallBakes, kSweets };

struct Product {
  Use use;
  Kind kind;
  std::string name;        // "red velvet cake"
  std::string a_name;      // "a red velvet cake", "six pineapple pastries"
  std::string short_name;  // "cake", "pastries": what the email calls it after the first mention
  bool plural;
  int price_lo, price_hi;  // rupees
};

// A whole-word substitution applied to a finished email.
struct Typo {
  std::string word, typo;
};

// A swap-pair frame: one phrase goes in {A}, the other in {B}; first_wins says whether the
// phrase in {A} is the one asked for.
struct Frame {
  Use use;
  bool first_wins;
  std::string text;
};

// One way a label's single emails are made (modes.tsv).
struct Mode {
  int weight;
  Situation situation;
  bool needs_cake;  // requests mention a message, flavour, size or eggless
  Tone tone;
  bool stack;  // two of its stories may appear together
  std::span<const Entry> stories, requests;
};

// Two labels whose emails come in swap pairs (families.tsv).
struct PairFamily {
  std::string name;
  int pairs_per_1000;  // pairs per 1,000 emails of a split
  Situation situation;
  bool needs_cake;
  Label label_a, label_b;
  std::span<const Entry> stories;
  std::span<const Entry> phrases_a, phrases_b;
  std::span<const Frame> frames, balanced_frames;
};

template <typename T>
using NamedTables = std::map<std::string, std::vector<T>, std::less<>>;

// Every table, in file order. Modes and families point into the named tables below, so a Phrases
// is moved, never copied.
struct Phrases {
  Phrases() = default;
  Phrases(const Phrases&) = delete;
  Phrases& operator=(const Phrases&) = delete;
  Phrases(Phrases&&) = default;
  Phrases& operator=(Phrases&&) = default;

  // customers.tsv
  std::vector<Entry> first_names, surnames, localities, addresses, occasions, cake_messages;
  // products.tsv
  std::vector<Product> products;
  // values.tsv: pools shared by every split
  std::vector<std::string> flavours, sizes, times, days, late, delivered_when, placed_when,
      headcounts, quote_dates, emoji_neutral, emoji_unhappy, emoji_happy;
  std::vector<int> fees;  // rupees
  // letters.tsv
  std::vector<Entry> greetings, signoffs, subjects_delivered, subjects_pending, subjects_none,
      openers_delivered, openers_upcoming, openers_due_today, openers_none, fillers_delivered,
      fillers_unhappy, fillers_pending, fillers_none, soft_extras, push_extras, quotes, long_quotes,
      signatures;
  // typos.tsv
  std::vector<Typo> typos;
  // modes.tsv, by label, over the tables of singles.tsv
  std::array<std::vector<Mode>, kNumLabels> modes;
  NamedTables<Entry> single_tables;
  // families.tsv, over the tables of pairs.tsv and frames.tsv
  std::vector<PairFamily> families;
  NamedTables<Entry> pair_tables;
  NamedTables<Frame> frame_tables;
};

// Reads the files of `dir`. Throws PhraseError naming the file and line of the first problem.
Phrases load_phrases(const std::filesystem::path& dir);

}  // namespace router::crumb
