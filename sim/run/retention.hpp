// What a long live run (`ckptsim serve`) keeps of its history. Flink's JobManager answers from
// bounded state: counters, the newest metric samples, the checkpoint history. A LiveRun with a
// retention window merges the time-series rows older than the window into one row per subtask
// and execution attempt: the sums the REST API and the metrics read (records, busy, idle,
// back-pressured time of an attempt) and the newest samples stay exactly as they were, so every
// answer is the same while the rows no longer grow with the run (one row per attempt remains).
#pragma once

#include "sim/run/result.hpp"

namespace ckptsim::run {

// Merges, per subtask, the rows that end before `before` and between the same two of the points
// where a writer cuts attempts apart (deployments, the current attempt's state changes) into the
// first of them: counters and times summed, gauges of the newest. Newer rows are left alone.
void compact_timeseries(RunResult& result, SimTime before);

}  // namespace ckptsim::run
