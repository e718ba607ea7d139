// Flink's default operator chaining (StreamingJobGraphGenerator.isChainable): forward edges
// between equal parallelisms chain into one task; other edges, or an upstream with two
// consumers, do not.
#include <catch2/catch.hpp>

#include "sim/model/config.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
using namespace ckptsim::model;

namespace {
VertexSpec op(std::string name, std::optional<std::string> input, ShipStrategy ship,
              Duration cost, int parallelism = 2, double selectivity = 1.0) {
  VertexSpec v;
  v.name = std::move(name);
  v.input = std::move(input);
  v.ship = ship;
  v.cost_per_record = cost;
  v.parallelism = parallelism;
  v.selectivity = selectivity;
  return v;
}
}  // namespace

TEST_CASE("chaining: forward edges with equal parallelism become one task", "[chaining]") {
  JobSpec job;
  job.vertices = {op("Source: S", std::nullopt, ShipStrategy::forward, 0),
                  op("Filter", "Source: S", ShipStrategy::forward, core::microseconds(10), 2, 0.5),
                  op("Map", "Filter", ShipStrategy::forward, core::microseconds(20)),
                  op("Sink: K", "Map", ShipStrategy::hash, core::microseconds(5)),
                  op("Sink: Audit", "Sink: K", ShipStrategy::forward, core::microseconds(1), 3)};
  const JobSpec chained = chain_operators(job);
  REQUIRE(chained.vertices.size() == 3);
  const VertexSpec& head = chained.vertices[0];
  CHECK(head.name == "Source: S -> Filter -> Map");
  CHECK(head.operators == std::vector<std::string>{"Source: S", "Filter", "Map"});
  // Per record read: 10 us filter, then half the records reach the 20 us map.
  CHECK(head.cost_per_record == core::microseconds(20));
  CHECK(head.selectivity == Approx(0.5));
  CHECK(chained.vertices[1].name == "Sink: K");          // hash edge: not chained
  CHECK(chained.vertices[1].input == std::optional<std::string>("Source: S -> Filter -> Map"));
  CHECK(chained.vertices[2].name == "Sink: Audit");      // different parallelism
  CHECK(task_of_operator(chained, "Map") == 0);
  CHECK(task_of_operator(chained, "Sink: Audit") == 2);
  CHECK(task_of_operator(chained, "nope") == -1);
}

TEST_CASE("chaining: an upstream with two consumers is not chained", "[chaining]") {
  JobSpec job;
  job.vertices = {op("Source", std::nullopt, ShipStrategy::forward, 0),
                  op("A", "Source", ShipStrategy::forward, 1),
                  op("B", "Source", ShipStrategy::forward, 1)};
  CHECK(chain_operators(job).vertices.size() == 3);
}

TEST_CASE("chaining: the run shows tasks as Flink names them; a stalled operator blocks its "
          "chain; pipeline.operator-chaining: false keeps operators apart",
          "[chaining][e2e]") {
  const std::string yaml = R"(
name: chained
duration: 10 min
flink: { execution.checkpointing.interval: 1 min, execution.checkpointing.timeout: 2 min }
job:
  vertices:
    - { name: "Source: Events", parallelism: 2, rate: 1000 records/s }
    - { name: Enrich, parallelism: 2, input: "Source: Events", cost: 10 us/record }
    - { name: "Sink: Out", parallelism: 2, input: Enrich, cost: 10 us/record }
timeline:
  - { at: 5 min, do: stall, vertex: "Sink: Out" }
)";
  const auto loaded = scenario::load_string(yaml, "chained.yaml");
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  REQUIRE(r.vertices.size() == 1);
  CHECK(r.vertices[0].name == "Source: Events -> Enrich -> Sink: Out");
  // The whole chain is one thread: the stall holds the trigger mail, so nothing acknowledges.
  bool expired = false;
  for (const auto& c : r.checkpoints)
    if (c.failure_reason == CheckpointFailureReason::checkpoint_expired) {
      expired = true;
      CHECK(c.num_acknowledged == 0);
    }
  CHECK(expired);
  const auto unchained = scenario::load_string(yaml, "chained.yaml", {"pipeline.operator-chaining=false"});
  REQUIRE(unchained.ok());
  CHECK(run::run(*unchained.scenario).vertices.size() == 3);
}
