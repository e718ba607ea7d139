// RestartBackoffTimeStrategy implementations: none, fixed-delay, failure-rate and
// exponential-delay (both the 1.17/1.18 and the 1.19+ variants), with Flink's toString().
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "sim/core/random.hpp"
#include "sim/core/time.hpp"
#include "sim/model/config.hpp"

namespace ckptsim::model {

class RestartBackoffTimeStrategy {
 public:
  virtual ~RestartBackoffTimeStrategy() = default;
  // notifyFailure: returns whether this failure is a new attempt (1.19+ exponential-delay merges
  // failures that arrive before the scheduled restart).
  virtual bool notify_failure(SimTime now) = 0;
  virtual bool can_restart() const = 0;
  virtual Duration backoff_time() const = 0;
  virtual std::string to_string() const = 0;
};

// RestartBackoffTimeStrategyFactoryLoader with the resolved configuration (see
// resolve_defaults). The random stream feeds the exponential-delay jitter.
std::unique_ptr<RestartBackoffTimeStrategy> create_restart_strategy(const FlinkConfig& config,
                                                                    core::RandomStream rng);

}  // namespace ckptsim::model
