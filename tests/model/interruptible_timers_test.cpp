// Interruptible timers (FLINK-20217, Flink 1.20: execution.checkpointing.unaligned.
// interruptible-timers.enabled): with unaligned checkpoints and an operator that opts in, a
// checkpoint's mail runs between two timers of a burst instead of after it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/support/run_file.hpp"

namespace ckptsim {
namespace {

// The longest completed checkpoint of timer-burst (300,000 timers of 20 us from 62 s) with
// these settings.
core::Duration longest(const std::vector<std::string>& sets) {
  std::vector<std::string> all = {"flink.version=1.20", "duration=2 min"};
  all.insert(all.end(), sets.begin(), sets.end());
  const run::RunResult r = tests::run_file("scenarios/examples/timer-burst.yaml", all);
  core::Duration out = 0;
  for (const auto& c : r.checkpoints)
    if (c.status == run::CheckpointStatus::completed)
      out = std::max(out, c.end_time - c.trigger_time);
  return out;
}

}  // namespace

TEST_CASE(
    "interruptible timers let a checkpoint through a burst only with the flag, unaligned "
    "checkpoints and an operator that opts in",
    "[timers]") {
  const std::string flag =
      "flink.execution.checkpointing.unaligned.interruptible-timers.enabled=true";
  const std::string uc = "flink.execution.checkpointing.unaligned.enabled=true";
  const std::string sql = "timeline[0].api=sql";
  // The SQL operator yields: the checkpoint does not wait for the 6 s burst.
  CHECK(longest({flag, uc, sql}) < core::milliseconds(500));
  // Each condition missing: the checkpoint waits for the rest of the burst (about 4 s).
  CHECK(longest({flag, uc}) > core::seconds(3));   // DataStream's WindowOperator
  CHECK(longest({flag, sql}) > core::seconds(3));  // aligned checkpoints
  CHECK(longest({uc, sql}) > core::seconds(3));    // the flag is off by default
  // The key does not exist before 1.20.
  const auto old =
      scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/examples/timer-burst.yaml",
                          {"flink.version=1.19", flag});
  CHECK_FALSE(old.ok());
}

}  // namespace ckptsim
