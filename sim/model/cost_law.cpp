#include "sim/model/cost_law.hpp"

#include <algorithm>
#include <cmath>

namespace ckptsim::model {

Duration CostLaw::at(const Inputs& in) const {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double total =
      static_cast<double>(base) +
      static_cast<double>(per_checkpoint) * static_cast<double>(in.completed_checkpoints) +
      static_cast<double>(per_mb_since_checkpoint) *
          (static_cast<double>(in.bytes_since_checkpoint) / kMiB) +
      static_cast<double>(per_mb_state) * (static_cast<double>(in.state_bytes) / kMiB) +
      static_cast<double>(per_minute_since_start) *
          (static_cast<double>(in.since_start) / static_cast<double>(core::minutes(1)));
  return static_cast<Duration>(std::llround(std::max(0.0, total)));
}

CostLaw& CostLaw::operator+=(const CostLaw& other) {
  base += other.base;
  per_checkpoint += other.per_checkpoint;
  per_mb_since_checkpoint += other.per_mb_since_checkpoint;
  per_mb_state += other.per_mb_state;
  per_minute_since_start += other.per_minute_since_start;
  return *this;
}

}  // namespace ckptsim::model
