// The `expect:` section of a scenario as plain data: what must happen in the run, each item with
// the place it was written for reports. Read by sim/scenario, checked by analysis/expect; the
// model never sees it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/types.hpp"

namespace ckptsim::scenario {

// `= <= >= < >` (also written `exactly`, `at most`, `at least`, `less than`, `more than`).
enum class Comparison { equal, at_most, at_least, less, more };
struct Bound {
  Comparison comparison = Comparison::equal;
  double value = 0;  // a count, or nanoseconds for durations
};

// What a checkpoint's status may be expected to be.
enum class CheckpointOutcome { completed, failed, expired, in_progress, failure_reason };

enum class CheckpointCountKind { completed, failed, expired, triggered };

enum class ExpectationKind {
  checkpoint_status,          // checkpoint 4: expired
  all_checkpoints_completed,  // checkpoints: all completed
  checkpoint_count,           // completed checkpoints: ">= 5"
  job_failed_over,            // job: failed-over
  job_no_failover,            // job: no failover
  job_status,                 // job: FINISHED
  restarts,                   // restarts: "<= 3"
  failovers,                  // failovers: 1
  checkpoint_duration,        // checkpoint duration p99: "< 30 s"
  replayed_records,           // replayed records: "<= 1M"
  lost_records,               // lost records: 0 (Kafka transactions the broker aborted)
  diagnosis_contains,         // diagnosis contains: "text" (why a checkpoint waited)
  log_contains,               // log contains: "text"
  log_lacks,                  // log lacks: "text"
};

struct Expectation {
  ExpectationKind kind = ExpectationKind::job_failed_over;
  // Where it is written and how (`checkpoint 4: expired, within 20 min`), for reports.
  std::string file;
  int line = 0;
  int column = 0;
  std::string text;
  // The parameters; which ones apply depends on `kind`.
  std::int64_t checkpoint_id = 0;                                // checkpoint_status
  CheckpointOutcome outcome = CheckpointOutcome::completed;      // checkpoint_status
  model::CheckpointFailureReason reason{};                       // outcome == failure_reason
  CheckpointCountKind count_kind = CheckpointCountKind::completed;  // checkpoint_count
  model::JobStatus job_status = model::JobStatus::running;       // job_status
  // checkpoint_duration: 50, 90, 95, 99, 99.9 or 100 (max); 0 is the minimum, -1 the average.
  double percentile = 50;
  Bound bound;                 // counts, durations, replayed records
  std::string log_text;        // log_contains, log_lacks
  // "By simulated time T": the state of things at T instead of at the end of the run.
  std::optional<core::Duration> within;
};

struct Expectations {
  bool present = false;  // the scenario has an `expect:` key (maybe an empty list)
  std::vector<Expectation> items;
};

}  // namespace ckptsim::scenario
