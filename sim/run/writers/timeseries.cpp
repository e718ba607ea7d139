// timeseries.csv: the per-subtask series of a run, one row per sample period, with fixed
// formatting so the same run always writes the same bytes.
#include <fmt/format.h>

#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {

std::string timeseries_csv(const RunResult& r) {
  std::string out =
      "time_s,vertex,subtask,busy_ms_per_s,backpressured_ms_per_s,idle_ms_per_s,"
      "input_buffers,output_buffers,records_in_per_s,records_out_per_s\n";
  for (const TaskSampleRow& row : r.timeseries) {
    const model::TaskSample& s = row.sample;
    const double seconds = static_cast<double>(s.period) / 1e9;
    if (seconds <= 0) continue;
    // Time in a state as ms per second of the period (TaskIOMetricGroup), clamped to 1000.
    const auto per_second = [&](Duration d) {
      return std::min(1000.0, static_cast<double>(d) / 1e6 / seconds);
    };
    fmt::format_to(std::back_inserter(out), "{:.3f},{},{},{:.1f},{:.1f},{:.1f},{},{},{:.1f},{:.1f}\n",
                   static_cast<double>(row.end) / 1e9,
                   r.vertices[static_cast<std::size_t>(row.vertex)].name, row.subtask,
                   per_second(s.busy), per_second(s.back_pressured), per_second(s.idle),
                   s.input_buffers, s.output_buffers,
                   static_cast<double>(s.records_in) / seconds,
                   static_cast<double>(s.records_out) / seconds);
  }
  return out;
}

}  // namespace ckptsim::run
