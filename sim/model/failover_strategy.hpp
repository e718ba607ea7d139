// FailoverStrategy (flink-runtime executiongraph.failover.flip1): which tasks a task failure
// restarts. `jobmanager.execution.failover-strategy: region` (the default) is
// RestartPipelinedRegionFailoverStrategy: the failed task's pipelined region; `full` is
// RestartAllFailoverStrategy: every task. A global failure (failGlobal) restarts every task
// whatever the strategy.
//
// Pipelined regions (SchedulingPipelinedRegionComputeUtil.computePipelinedRegions): subtasks
// linked by a pipelined result partition belong to one region. Every partition of a streaming
// job is pipelined, so a region is a connected component of the subtasks and their channels: an
// all-to-all edge (hash, rebalance, broadcast) joins every subtask of both vertices, a forward or
// rescale edge only the pairs it connects, so a job of forward chains has one region per chain.
// RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart also adds the regions consuming
// the failed region's results and those producing results it can no longer read; with every
// partition pipelined no channel leaves a region, so there are none.
#pragma once

#include <utility>
#include <vector>

#include "sim/model/config.hpp"

namespace ckptsim::model {

class FailoverStrategy {
 public:
  // `channels`: (producer, consumer) subtask ids of every channel of the job.
  FailoverStrategy(FailoverStrategyKind kind, int subtasks,
                   const std::vector<std::pair<int, int>>& channels);

  // The subtasks a failure of subtask `failed` restarts, ascending.
  std::vector<int> tasks_needing_restart(int failed) const;
  int num_regions() const { return static_cast<int>(regions_.size()); }
  // The region of a subtask (for tests and the story).
  int region_of(int subtask) const { return region_[static_cast<std::size_t>(subtask)]; }

 private:
  FailoverStrategyKind kind_;
  std::vector<int> region_;                // per subtask
  std::vector<std::vector<int>> regions_;  // subtask ids of each, ascending
};

}  // namespace ckptsim::model
