#include "tests/equivalence/equivalence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

namespace ckptsim::tests {

namespace {

double ms(core::Duration d) {
  return static_cast<double>(d) / 1e6;
}

void compare_checkpoints(const std::vector<run::CheckpointRecord>& a,
                         const std::vector<run::CheckpointRecord>& b, const std::string& what,
                         std::vector<std::string>& out) {
  if (a.size() != b.size()) {
    out.push_back(fmt::format("{}: {} checkpoints exact, {} hybrid", what, a.size(), b.size()));
    return;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const run::CheckpointRecord& x = a[i];
    const run::CheckpointRecord& y = b[i];
    if (x.id != y.id || x.status != y.status || x.failure_reason != y.failure_reason ||
        x.failure_message != y.failure_message) {
      out.push_back(fmt::format("{} {}: status or failure differs ('{}' exact, '{}' hybrid)", what,
                                x.id, x.failure_message, y.failure_message));
      continue;
    }
    if (x.status != run::CheckpointStatus::completed) continue;
    const core::Duration dx = x.end_time - x.trigger_time;
    const core::Duration dy = y.end_time - y.trigger_time;
    const double allowed = std::max(0.02 * ms(dx), 5.0);
    if (std::abs(ms(dy) - ms(dx)) > allowed)
      out.push_back(fmt::format("{} {}: took {:.3f} ms exact, {:.3f} ms hybrid (allowed {:.3f})",
                                what, x.id, ms(dx), ms(dy), allowed));
  }
}

bool within(double x, double y, double relative) {
  return std::abs(x - y) <= relative * std::max(std::abs(x), std::abs(y)) + 1e-9;
}

}  // namespace

std::vector<std::string> network_differences(const run::RunResult& exact,
                                             const run::RunResult& hybrid) {
  std::vector<std::string> out;
  compare_checkpoints(exact.checkpoints, hybrid.checkpoints, "checkpoint", out);
  compare_checkpoints(exact.earlier_checkpoints, hybrid.earlier_checkpoints, "earlier checkpoint",
                      out);
  if (exact.failovers != hybrid.failovers || exact.restarts != hybrid.restarts)
    out.push_back(fmt::format("failovers/restarts: {}/{} exact, {}/{} hybrid", exact.failovers,
                              exact.restarts, hybrid.failovers, hybrid.restarts));
  if (exact.final_status != hybrid.final_status)
    out.push_back(fmt::format("final status: {} exact, {} hybrid",
                              model::to_string(exact.final_status),
                              model::to_string(hybrid.final_status)));
  const auto failures = [](const run::RunResult& r) {
    std::vector<std::string> f;
    for (const auto& t : r.task_failures) f.push_back(t.exception_class + ": " + t.message);
    for (const auto& g : r.global_failures) f.push_back(g.exception_class + ": " + g.message);
    return f;
  };
  if (failures(exact) != failures(hybrid)) out.push_back("task or global failures differ");

  const auto& le = exact.end_to_end_latency;
  const auto& lh = hybrid.end_to_end_latency;
  if (!within(static_cast<double>(le.records), static_cast<double>(lh.records), 0.02))
    out.push_back(fmt::format("records at the sinks: {} exact, {} hybrid", le.records, lh.records));
  // 5 %, and one histogram bucket (2^(1/16)) more: a percentile is a bucket's middle.
  const double bucket = std::exp2(1.0 / 16) - 1;
  if (!within(le.p50_ms, lh.p50_ms, 0.05 + bucket) || !within(le.p99_ms, lh.p99_ms, 0.05 + bucket))
    out.push_back(fmt::format("latency p50/p99: {:.3f}/{:.3f} ms exact, {:.3f}/{:.3f} ms hybrid",
                              le.p50_ms, le.p99_ms, lh.p50_ms, lh.p99_ms));
  // The mean (which the story prints) within 5 % too; a slow beat can move the exact run's mean
  // away over an hour (docs/scenario-format.md, "network").
  if (!within(le.mean_ms, lh.mean_ms, 0.05))
    out.push_back(fmt::format("latency mean: {:.3f} ms exact, {:.3f} ms hybrid", le.mean_ms,
                              lh.mean_ms));

  using Key = std::tuple<core::SimTime, int, int>;
  std::map<Key, const model::TaskSample*> samples;
  for (const run::TaskSampleRow& row : exact.timeseries)
    samples[{row.end, row.vertex, row.subtask}] = &row.sample;
  if (exact.timeseries.size() != hybrid.timeseries.size())
    out.push_back(fmt::format("samples: {} exact, {} hybrid", exact.timeseries.size(),
                              hybrid.timeseries.size()));
  int reported = 0;
  for (const run::TaskSampleRow& row : hybrid.timeseries) {
    const auto it = samples.find({row.end, row.vertex, row.subtask});
    if (it == samples.end()) {
      if (reported++ < 5)
        out.push_back(
            fmt::format("a hybrid sample the exact run lacks: vertex {} subtask {} at {} ms",
                        row.vertex, row.subtask, ms(row.end)));
      continue;
    }
    const model::TaskSample& x = *it->second;
    const model::TaskSample& y = row.sample;
    const double seconds = std::max(ms(x.period), 1.0) / 1000;
    const double busy = std::abs(ms(x.busy) - ms(y.busy)) / seconds;
    const double back_pressured = std::abs(ms(x.back_pressured) - ms(y.back_pressured)) / seconds;
    if ((busy > 2 || back_pressured > 2) && reported++ < 5)
      out.push_back(fmt::format(
          "vertex {} subtask {} at {} ms: busy {:.2f}/{:.2f}, back-pressured {:.2f}/{:.2f} ms "
          "exact/hybrid in {:.0f} ms",
          row.vertex, row.subtask, ms(row.end), ms(x.busy), ms(y.busy), ms(x.back_pressured),
          ms(y.back_pressured), ms(x.period)));
  }
  if (reported > 5) out.push_back(fmt::format("... {} sample differences in all", reported));
  return out;
}

}  // namespace ckptsim::tests
