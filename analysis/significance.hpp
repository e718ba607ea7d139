// When one setting is better than another: per metric, a difference counts only when it is
// beyond noise (Welch's t-test at 95 % over the seeds) and beyond a practical threshold (1 % of
// the larger mean, at least the metric's resolution); under an objective, the first term on
// which two settings differ decides, and settings that differ on none are a tie. `sweep`,
// `compare` and `advise` pick their best settings by this rule (docs/sweeps.md).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/sweep.hpp"

namespace ckptsim::analysis {

enum class Outcome { better, worse, tie };

// a compared with b on metric m (lower is better unless `maximize`): better or worse only when
// the difference is significant and larger than the practical threshold. A missing value
// (no run gave one) is worse than any value.
Outcome compare_metric(Metric m, const Estimate& a, const Estimate& b, bool maximize = false);

// a compared with b under the objective: the outcome of the first term that is not a tie, and
// that term (nullopt: a tie on every term).
struct Ranking {
  Outcome outcome = Outcome::tie;
  std::optional<ObjectiveTerm> decided_by;
};
Ranking rank(const SettingSummary& a, const SettingSummary& b,
             const std::vector<ObjectiveTerm>& objective);

// The settings among `candidates` (indices into `settings`) that no other candidate beats
// under the objective, in the order given. One: the best; several: tied for the best.
std::vector<std::size_t> undominated(const std::vector<SettingSummary>& settings,
                                     const std::vector<std::size_t>& candidates,
                                     const std::vector<ObjectiveTerm>& objective);

}  // namespace ckptsim::analysis
