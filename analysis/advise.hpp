// ckptsim advise: from what a run of the incident shows (its findings), the settings a user
// controls that could address it (candidates, each with the mechanism it acts on), and, once a
// sweep of the baseline and the candidates over seeds has run, the verdict: which setting wins
// beyond noise, which tie, which are worse, and why (docs/advise.md).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analysis/sweep.hpp"
#include "sim/model/config.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::analysis {

// What the baseline run shows, in the terms the candidates are chosen by.
struct Findings {
  std::vector<std::string> lines;    // for the verdict: what happened, in the story's words
  std::set<std::string> wait_kinds;  // why late subtasks waited in expired checkpoints
  std::set<model::CheckpointFailureReason> reasons;  // of failed (and refused) checkpoints
  std::int64_t completed = 0, failed = 0, expired = 0;
  int failovers = 0;
  bool checkpoint_failovers = false;  // a failover came from the failure manager's threshold
  bool task_blocked = false;          // a late subtask's thread is inside user code (no mail runs)
  bool thread_never_returns = false;  // ... and never comes back
  bool cdc_snapshot = false;          // a MySQL CDC source was reading its snapshot
  bool cdc_binlog_waiting = false;    // the binlog split waited for a completed checkpoint
  std::int64_t chunk_rows = 0;        // largest snapshot chunk emitted in one mailbox step
  bool coordinator_busy = false;      // an operator coordinator held the trigger back
  bool lost_records = false;          // Kafka transactions the broker aborted
  bool back_to_back = false;          // checkpoints take about an interval, no pause between
  double p50_duration_ms = 0;         // of the completed checkpoints
};
Findings find(const run::RunResult& result, const model::Scenario& scenario);

// One setting to try: KEY=VALUE overrides (`--set` paths, all user settings), what it acts on,
// what limits it given the findings, and what it costs the user.
struct Candidate {
  std::vector<std::string> overrides;
  std::string why;      // the mechanism it addresses
  std::string why_not;  // why it may not help here (shown when it does not win); may be empty
  std::string caveat;   // what the user gives up when it wins; may be empty
  // False: not worth a run, the findings already say why (why_not): shown as "not tried".
  bool tried = true;
};
std::vector<Candidate> candidates(const Findings& findings, const model::Scenario& scenario);

// The objective when the user gives none: lost records, failovers, failed checkpoints, latency
// p99, overhead; with "most completed checkpoints" first when the baseline completes none.
std::string default_objective(const Findings& findings);

// The sweep's grid for the baseline (setting 0) and the candidates: the union of the candidates'
// keys, each setting showing its own value and "(as is)" for the others.
std::vector<std::string> candidate_keys(const std::vector<Candidate>& candidates);
std::vector<std::string> candidate_values(const Candidate& candidate,
                                          const std::vector<std::string>& keys);
inline constexpr const char* kAsIs = "(as is)";

// Every tried candidate (in order: comparison settings 1.. against 0), then the winners against
// each other.
struct Verdict {
  std::vector<std::size_t> recommended;  // candidate indices: one, or several tied
  std::vector<std::size_t> better;       // better than the baseline, beaten by a recommended one
  std::vector<std::size_t> ties;         // not separated from the baseline on any term
  std::vector<std::size_t> worse;
  // Better on the objective only by hiding the failures: fewer checkpoints complete and no
  // fewer fail (tolerating failures, or a timeout beyond the run); never recommended.
  std::vector<std::size_t> hiding;
};
Verdict judge(const Comparison& comparison, std::size_t tried_count);

// The verdict as the terminal shows it (and advice.md holds).
std::string advice_text(const std::string& scenario_path, const Findings& findings,
                        const std::vector<Candidate>& candidates,
                        const std::vector<Candidate>& not_tried, const Comparison& comparison,
                        const Verdict& verdict, std::size_t seeds, std::uint64_t first_seed);

}  // namespace ckptsim::analysis
