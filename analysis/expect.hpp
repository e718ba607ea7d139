// Checks a scenario's expectations against a finished run: each one passes or fails with
// "expected X, got Y". Reads only the plain RunResult and its formatted Flink log.
#pragma once

#include <string>
#include <vector>

#include "sim/run/result.hpp"
#include "sim/scenario/expectations.hpp"

namespace ckptsim::analysis {

struct ExpectationResult {
  scenario::Expectation expectation;
  bool passed = false;
  std::string expected;  // "EXPIRED by 00:20:00.000", ">= 3", "a failover"
  std::string actual;    // "COMPLETED at 00:13:24.684", "2", "no failover"
};

// One result per expectation, in the given order.
std::vector<ExpectationResult> check_expectations(
    const std::vector<scenario::Expectation>& expectations, const run::RunResult& result);

// "file:12:5: checkpoint 4: expired: expected EXPIRED, got COMPLETED at 00:13:24.684".
std::string describe_result(const ExpectationResult& result);

// End-to-end durations (trigger to last acknowledgement, ns) of the checkpoints and savepoints of
// every submission that completed by `until`, in trigger order.
std::vector<double> completed_checkpoint_durations(const run::RunResult& result,
                                                   core::SimTime until);

// An instant of simulated time as the story shows it: "00:20:24.641".
std::string format_sim_time(core::SimTime time);

}  // namespace ckptsim::analysis
