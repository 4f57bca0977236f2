#include "train/batches.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include "base/errors.h"

namespace router {

std::vector<std::vector<int>> epoch_batches(const std::vector<std::vector<int32_t>>& ids,
                                            std::vector<std::vector<int>> units, int batch_size,
                                            Rng& rng) {
  if (units.empty()) {
    for (size_t i = 0; i < ids.size(); ++i) units.push_back({static_cast<int>(i)});
  }
  shuffle(units, rng);
  const auto longest = [&](const std::vector<int>& unit) {
    size_t n = 0;
    for (int i : unit) n = std::max(n, ids[i].size());
    return n;
  };
  const size_t window = static_cast<size_t>(batch_size) * 16;
  for (size_t lo = 0; lo < units.size();) {
    size_t hi = lo;
    for (size_t examples = 0; hi < units.size() && examples < window; ++hi) {
      examples += units[hi].size();
    }
    std::stable_sort(units.begin() + static_cast<std::ptrdiff_t>(lo),
                     units.begin() + static_cast<std::ptrdiff_t>(hi),
                     [&](const auto& a, const auto& b) { return longest(a) < longest(b); });
    lo = hi;
  }
  std::vector<int> order;
  for (const auto& unit : units) order.insert(order.end(), unit.begin(), unit.end());
  std::vector<std::vector<int>> batches;
  for (size_t lo = 0; lo < order.size(); lo += batch_size) {
    batches.emplace_back(order.begin() + lo,
                         order.begin() + std::min(order.size(), lo + batch_size));
  }
  shuffle(batches, rng);
  return batches;
}

std::vector<std::vector<int>> pair_units(const std::vector<Example>& train) {
  std::vector<std::vector<int>> units;
  std::map<std::string, size_t> unit_of;
  for (size_t i = 0; i < train.size(); ++i) {
    const std::string& pair = train[i].pair;
    if (pair.empty()) {
      units.push_back({static_cast<int>(i)});
      continue;
    }
    const auto [it, fresh] = unit_of.emplace(pair, units.size());
    if (fresh) units.emplace_back();
    units[it->second].push_back(static_cast<int>(i));
  }
  if (unit_of.empty()) {
    throw InputError("--pair-batches: no training record has a pair id (a \"pair\" member)");
  }
  return units;
}

}  // namespace router
