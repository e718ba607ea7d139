// The network modes' equivalence (issue 17): a run with network: hybrid against the same run with
// network: exact, held to the tolerances of docs/scenario-format.md ("network"):
//  - the same checkpoints with the same statuses and failure reasons, the same failovers,
//    restarts, task and global failures, and the same final job status;
//  - completed checkpoints' durations within 2 % or 5 ms, whichever is larger;
//  - end-to-end latency p50 and p99 within 5 % (or one histogram bucket, 4.4 %, above 1 ms);
//  - every subtask's busy and back-pressured time within 2 ms per second in every sample;
//  - records conserved: the records the sinks processed within 2 %, the same samples.
#pragma once

#include <string>
#include <vector>

#include "sim/run/result.hpp"

namespace ckptsim::tests {

// What differs beyond the tolerances, one line each (empty: equivalent).
std::vector<std::string> network_differences(const run::RunResult& exact,
                                             const run::RunResult& hybrid);

}  // namespace ckptsim::tests
