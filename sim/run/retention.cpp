#include "sim/run/retention.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "sim/run/writers/metrics.hpp"

namespace ckptsim::run {
namespace {

void add_into(TaskSampleRow& into, const TaskSampleRow& row) {
  model::TaskSample& s = into.sample;
  s.period += row.sample.period;
  s.busy += row.sample.busy;
  s.back_pressured += row.sample.back_pressured;
  s.idle += row.sample.idle;
  s.records_in += row.sample.records_in;
  s.records_out += row.sample.records_out;
  if (row.end >= into.end) {  // gauges: the newest
    s.input_buffers = row.sample.input_buffers;
    s.output_buffers = row.sample.output_buffers;
    into.end = row.end;
  }
  s.start = std::min(s.start, row.sample.start);
}

// Where the writers cut a subtask's rows, by the end of each row: the task metrics at each
// attempt's deployment (writers/metric_values.cpp), the REST I/O counters at the current
// attempt's first state (writers/rest_execution.cpp). Sorted.
std::vector<SimTime> cuts(const std::vector<SimTime>& deployed, const SubtaskExecution* current) {
  std::vector<SimTime> out = deployed;
  if (current != nullptr)
    for (SimTime t : current->entered)
      if (t >= 0) out.push_back(t);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

void compact_timeseries(RunResult& r, SimTime before) {
  std::vector<std::size_t> offset(r.vertices.size() + 1, 0);
  for (std::size_t v = 0; v < r.vertices.size(); ++v)
    offset[v + 1] = offset[v] + static_cast<std::size_t>(std::max(r.vertices[v].parallelism, 0));
  const auto deployed = attempt_start_times(r);
  std::map<std::pair<int, int>, std::vector<SimTime>> cut_points;
  // (subtask, segment between two cuts) -> the row the segment's old rows are merged into
  std::map<std::tuple<int, int, std::size_t>, std::size_t> merged_into;
  std::vector<bool> drop(r.timeseries.size(), false);
  for (std::size_t i = 0; i < r.timeseries.size(); ++i) {
    const TaskSampleRow& row = r.timeseries[i];
    if (row.end >= before || row.vertex < 0 ||
        static_cast<std::size_t>(row.vertex) >= r.vertices.size())
      continue;
    const std::pair<int, int> subtask{row.vertex, row.subtask};
    auto c = cut_points.find(subtask);
    if (c == cut_points.end()) {
      const std::size_t index =
          offset[static_cast<std::size_t>(row.vertex)] + static_cast<std::size_t>(row.subtask);
      const auto d = deployed.find(subtask);
      c = cut_points
              .emplace(subtask, cuts(d == deployed.end() ? std::vector<SimTime>{} : d->second,
                                     index < r.executions.size() ? &r.executions[index] : nullptr))
              .first;
    }
    // Segment k holds the rows with cuts[k-1] < end <= cuts[k].
    const auto segment = static_cast<std::size_t>(
        std::lower_bound(c->second.begin(), c->second.end(), row.end) - c->second.begin());
    const auto [it, first] =
        merged_into.emplace(std::make_tuple(row.vertex, row.subtask, segment), i);
    if (first) continue;
    add_into(r.timeseries[it->second], row);
    drop[i] = true;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < r.timeseries.size(); ++i)
    if (!drop[i]) r.timeseries[kept++] = r.timeseries[i];
  r.timeseries.resize(kept);
}

}  // namespace ckptsim::run
