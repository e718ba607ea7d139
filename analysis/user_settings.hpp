// Which keys of a sweep are settings a user controls and which are the incident's conditions.
// A recommendation may only name settings: "set the timeout to 30 min" is advice, "make Doris
// twice as fast" or "slow the sink down less" is not (issue 19 item 3).
#pragma once

#include <string_view>

namespace ckptsim::analysis {

// True for Flink's options (`execution.checkpointing.timeout`, `flink.<key>`), connector options
// (`job.vertices[NAME].options.<key>`), a vertex's parallelism and the cluster's size
// (`cluster.taskmanagers`, `cluster.slots-per-taskmanager`), and `scenario` (ckptsim compare's
// files, which the user wrote). Everything else is a condition: external systems (`systems.*`),
// the checkpoint storage and disks, costs, rates, data and keys, the timeline, the job's code
// (inputs, ship strategies), the run's length and seed.
bool is_user_setting(std::string_view key);

}  // namespace ckptsim::analysis
