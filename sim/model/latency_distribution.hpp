// How long one request to an external system takes (a checkpoint storage write, an RPC): a
// lognormal body around `median` with spread `sigma` (0 = always exactly `median`), and with
// probability `slow_share` a slow request from a second lognormal (a throttled object store
// PUT, a NameNode pause, a GC on the far side). Real healthy checkpoints spread this way:
// 63/135/6,273 ms (min/avg/max) over 1,914 checkpoints on OSS (docs/scenario-format.md,
// "Checkpoint storage").
#pragma once

#include <algorithm>
#include <cmath>

#include "sim/core/random.hpp"
#include "sim/core/time.hpp"

namespace ckptsim::model {

struct LatencyDistribution {
  core::Duration median = 0;
  double sigma = 0;
  double slow_share = 0;
  core::Duration slow_median = 0;
  double slow_sigma = 0;

  static LatencyDistribution fixed(core::Duration d) { return {d, 0, 0, 0, 0}; }
  bool is_fixed() const { return sigma <= 0 && slow_share <= 0; }
  bool operator==(const LatencyDistribution&) const = default;

  // One request's latency. A fixed distribution draws nothing, so a scenario without spread
  // leaves its random stream untouched.
  core::Duration sample(core::RandomStream& rng) const {
    if (is_fixed()) return median;
    core::Duration m = median;
    double s = sigma;
    if (slow_share > 0 && rng.uniform01() < slow_share) {
      m = slow_median;
      s = slow_sigma;
    }
    if (s <= 0) return m;
    // exp(N(ln m, s)); capped at 1,000x the median so one draw cannot stop a run.
    const double factor = std::min(1000.0, std::exp(rng.normal(0.0, s)));
    return static_cast<core::Duration>(std::llround(static_cast<double>(m) * factor));
  }
};

}  // namespace ckptsim::model
