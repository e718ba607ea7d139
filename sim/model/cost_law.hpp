// How long a piece of work takes, as a law of quantities the model tracks (issue 13 item 2):
// a constant plus terms that grow with the checkpoint history, with the data a task consumed
// since its last checkpoint, with its state, and with the time since it (or the job) started.
// Used for the sync phase (a flush / prepareCommit at the barrier), notifyCheckpointComplete (a
// committer) and the operator coordinators' and master hooks' checkpoints on the JobManager.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/time.hpp"

namespace ckptsim::model {

using core::Duration;

struct CostLaw {
  Duration base = 0;
  Duration per_checkpoint = 0;           // x checkpoints completed so far in the run
  Duration per_mb_since_checkpoint = 0;  // x MiB consumed since the task's last checkpoint
  Duration per_mb_state = 0;             // x MiB of the task's state
  Duration per_minute_since_start = 0;   // x minutes since the task (or the job) last started
  Duration per_table = 0;                // x tables its source captures (a CDC source's list)

  struct Inputs {
    std::int64_t completed_checkpoints = 0;
    std::int64_t bytes_since_checkpoint = 0;
    std::int64_t state_bytes = 0;
    Duration since_start = 0;
    std::int64_t tables = 0;
  };

  CostLaw() = default;
  // A plain duration is a constant cost (so a cost reads as a duration where it is one).
  CostLaw(Duration constant) : base(constant) {}  // NOLINT(google-explicit-constructor)
  static CostLaw constant(Duration d) { return CostLaw(d); }
  bool operator==(const CostLaw&) const = default;
  bool grows() const {
    return per_checkpoint != 0 || per_mb_since_checkpoint != 0 || per_mb_state != 0 ||
           per_minute_since_start != 0 || per_table != 0;
  }
  Duration at(const Inputs& in) const;
  // The terms beyond `base` (what the quantities add).
  Duration growth(const Inputs& in) const { return at(in) - base; }
  CostLaw& operator+=(const CostLaw& other);
  // The law with its quantities, for the diagnosis: "500 ms + 5 s x 120 checkpoints".
  std::string describe(const Inputs& in) const;
};

// "5 s", "500 ms", "1.5 ms": the largest unit that keeps it short.
std::string duration_text(Duration d);

}  // namespace ckptsim::model
