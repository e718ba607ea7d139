#include "sim/model/failover_strategy.hpp"

#include <algorithm>
#include <numeric>

namespace ckptsim::model {

namespace {

int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    int& p = parent[static_cast<std::size_t>(x)];
    p = parent[static_cast<std::size_t>(p)];  // path halving
    x = p;
  }
  return x;
}

}  // namespace

FailoverStrategy::FailoverStrategy(FailoverStrategyKind kind, int subtasks,
                                   const std::vector<std::pair<int, int>>& channels)
    : kind_(kind), region_(static_cast<std::size_t>(subtasks), -1) {
  std::vector<int> parent(static_cast<std::size_t>(subtasks));
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& [producer, consumer] : channels) {
    const int a = find_root(parent, producer);
    const int b = find_root(parent, consumer);
    if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }
  // Regions numbered by their first subtask, so the numbering follows the job graph's order.
  std::vector<int> index_of_root(static_cast<std::size_t>(subtasks), -1);
  for (int s = 0; s < subtasks; ++s) {
    int& index = index_of_root[static_cast<std::size_t>(find_root(parent, s))];
    if (index < 0) {
      index = static_cast<int>(regions_.size());
      regions_.emplace_back();
    }
    region_[static_cast<std::size_t>(s)] = index;
    regions_[static_cast<std::size_t>(index)].push_back(s);
  }
}

std::vector<int> FailoverStrategy::tasks_needing_restart(int failed) const {
  if (kind_ == FailoverStrategyKind::full) {
    std::vector<int> all(region_.size());
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  return regions_[static_cast<std::size_t>(region_of(failed))];
}

}  // namespace ckptsim::model
