// A source's own `cost` is time on its task thread per record emitted (issue 12 item 3), and a
// source whose step goes to processing keeps its rate while the thread has capacity.
#include <catch2/catch.hpp>

#include <string>

#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

// Busy ms per second and records read per second of the source, averaged after the first 10 s.
std::pair<double, double> source_load(const std::string& cost_line) {
  const std::string text = std::string(R"(name: source-cost
duration: 1 min
flink:
  version: "1.17"
  execution.checkpointing.interval: 20 s
job:
  vertices:
    - name: "Source: S"
      rate: 1000 records/s
)") + cost_line + R"(
    - name: "Sink: K"
      input: { from: "Source: S", ship: rebalance }
      cost: 1 us/record
)";
  const auto loaded = scenario::load_string(text, "source-cost.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  double busy = 0, records = 0, seconds = 0;
  for (const run::TaskSampleRow& row : r.timeseries) {
    if (row.vertex != 0 || row.end <= core::seconds(10)) continue;
    busy += static_cast<double>(row.sample.busy) / 1e6;
    records += static_cast<double>(row.sample.records_in);
    seconds += static_cast<double>(row.sample.period) / 1e9;
  }
  REQUIRE(seconds > 40);
  return {busy / seconds, records / seconds};
}

}  // namespace

TEST_CASE("a source's cost is time on its task thread per record emitted", "[model][source]") {
  const auto [busy, rate] = source_load("      cost: 500 us/record");
  // 1,000 records/s at 500 us each: half of every second on the thread, at the full rate.
  CHECK(busy == Approx(500).margin(10));
  CHECK(rate == Approx(1000).margin(10));
}

TEST_CASE("a source without a cost of its own costs nothing to emit", "[model][source]") {
  const auto [busy, rate] = source_load("");
  CHECK(busy == Approx(0).margin(1));
  CHECK(rate == Approx(1000).margin(10));
}
