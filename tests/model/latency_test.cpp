// End-to-end latency (source read to sink processed): the histogram, and what the network adds:
// records wait in their output buffer until it fills or execution.buffer-timeout flushes it.
#include <catch2/catch.hpp>

#include "sim/model/latency.hpp"
#include "sim/run/run.hpp"

using namespace ckptsim;
using namespace ckptsim::model;

TEST_CASE("LatencyHistogram: exact mean, percentiles within half a 4.4 % bucket, by records",
          "[latency]") {
  LatencyHistogram h;
  h.add(core::milliseconds(10), 98);
  h.add(core::milliseconds(500), 2);
  h.add(core::milliseconds(7), 0);  // no records: ignored
  CHECK(h.records() == 100);
  CHECK(h.mean_ms() == Approx((98 * 10.0 + 2 * 500.0) / 100));
  CHECK(h.percentile_ms(0.5) == Approx(10).epsilon(0.023));
  CHECK(h.percentile_ms(0.98) == Approx(10).epsilon(0.023));
  CHECK(h.percentile_ms(0.99) == Approx(500).epsilon(0.023));
  CHECK(LatencyHistogram{}.percentile_ms(0.5) == 0);
}

namespace {

// Source (1,000 records/s of 100 B) -rebalance-> Sink (10 us per record), one subtask each on
// one TaskManager: 3 KB a second never fill a 32 KiB buffer, so the flush timer sends them.
run::RunResult flushed_pipeline(Duration buffer_timeout) {
  Scenario s;
  s.duration = core::seconds(60);
  s.sample_period = 0;
  s.flink.buffer_timeout = buffer_timeout;
  VertexSpec source;
  source.name = "Source";
  source.records_per_second = 1000;
  source.record_size = 100;
  VertexSpec sink;
  sink.name = "Sink";
  sink.input = "Source";
  sink.ship = ShipStrategy::rebalance;
  sink.cost_per_record = core::microseconds(10);
  s.job.vertices = {source, sink};
  return run::run(s);
}

}  // namespace

TEST_CASE("execution.buffer-timeout: records read evenly wait half the timeout on average for the "
          "flush (RecordWriter.OutputFlusher)", "[latency]") {
  const run::RunResult slow = flushed_pipeline(core::milliseconds(100));
  const run::RunResult fast = flushed_pipeline(core::milliseconds(10));
  REQUIRE(slow.end_to_end_latency.records > 50'000);
  // The flush waits up to the timeout; a buffer of n records costs n x 10 us at the sink. The
  // source reads in steps of one timeout, so the spread within a step is not resolved: the
  // percentiles sit at the mean, below the timeout.
  CHECK(slow.end_to_end_latency.mean_ms == Approx(50 + 0.5).margin(2.5));
  CHECK(slow.end_to_end_latency.p99_ms < 100);
  CHECK(fast.end_to_end_latency.mean_ms == Approx(5 + 0.05).margin(0.5));
  CHECK(fast.end_to_end_latency.p99_ms < 10);
}
