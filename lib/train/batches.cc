#include "train/batches.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include "base/errors.h"

namespace router {

std::vector<std::vector<int>> epoch_batches(const std::vector<std::vector<int32_t>>& ids,
                                            const std::vector<std::vector<int>>& units,
                                            int batch_size, Rng& rng) {
  // Unit u is units[u], or with no units example u: the common case allocates nothing per unit.
  const size_t n_units = units.empty() ? ids.size() : units.size();
  std::vector<size_t> length(n_units);  // a unit's longest email
  for (size_t u = 0; u < n_units; ++u) {
    if (units.empty()) {
      length[u] = ids[u].size();
    } else {
      for (int i : units[u]) length[u] = std::max(length[u], ids[i].size());
    }
  }
  const auto size_of = [&](int u) { return units.empty() ? size_t{1} : units[u].size(); };
  std::vector<int> order(n_units);
  for (size_t u = 0; u < n_units; ++u) order[u] = static_cast<int>(u);
  shuffle(order, rng);
  const size_t window = static_cast<size_t>(batch_size) * 16;
  for (size_t lo = 0; lo < n_units;) {
    size_t hi = lo;
    for (size_t examples = 0; hi < n_units && examples < window; ++hi) {
      examples += size_of(order[hi]);
    }
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(lo),
                     order.begin() + static_cast<std::ptrdiff_t>(hi),
                     [&](int a, int b) { return length[a] < length[b]; });
    lo = hi;
  }
  if (!units.empty()) {
    std::vector<int> examples;
    for (int u : order) examples.insert(examples.end(), units[u].begin(), units[u].end());
    order = std::move(examples);
  }
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
