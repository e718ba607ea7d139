// The TaskManager's NetworkBufferPool: reservations and the redistribution of the spare segments
// (BufferPoolFactoryTest and NetworkBufferPoolTest, release-1.17, ported by name), and what a
// task reserves when it is set up and starts reading (ResultPartitionFactory,
// SingleInputGateFactory, RemoteInputChannel.setup), with the task failure when the pool is short.
#include <catch2/catch.hpp>

#include <climits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "sim/model/network/network_buffer_pool.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace {

using ckptsim::model::NetworkBufferPool;
namespace run = ckptsim::run;
namespace scenario = ckptsim::scenario;

constexpr int kNumBuffers = 1024;  // BufferPoolFactoryTest.numBuffers

int create(NetworkBufferPool& pool, int required, int max) {
  auto created = pool.create_buffer_pool(required, max);
  REQUIRE(std::holds_alternative<int>(created));
  return std::get<int>(created);
}

}  // namespace

TEST_CASE("BufferPoolFactoryTest.testRequireMoreThanPossible: the IOException's message",
          "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  create(pool, kNumBuffers / 2 + 1, kNumBuffers);
  const auto second = pool.create_buffer_pool(kNumBuffers / 2 + 1, kNumBuffers);
  REQUIRE(std::holds_alternative<std::string>(second));
  CHECK(std::get<std::string>(second) ==
        "Insufficient number of network buffers: required 513, but only 511 available. The total "
        "number of network buffers is currently set to 1024 of 128 bytes each. You can increase "
        "this number by setting the configuration keys 'taskmanager.memory.network.fraction', "
        "'taskmanager.memory.network.min', and 'taskmanager.memory.network.max'.");
  CHECK(pool.available() == 511);  // the failed request reserved nothing
}

TEST_CASE("BufferPoolFactoryTest.testBoundedPools", "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int first = create(pool, 1, 1);
  CHECK(pool.pool_size(first) == 1);
  const int second = create(pool, 1, 2);
  CHECK(pool.pool_size(second) == 2);
}

TEST_CASE("BufferPoolFactoryTest.testSingleManagedPoolGetsAll(ExceptFixedOnes)",
          "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int fixed = create(pool, 24, 24);
  const int flexible = create(pool, 1, INT_MAX);
  CHECK(pool.pool_size(fixed) == 24);
  CHECK(pool.pool_size(flexible) == kNumBuffers - 24);
}

TEST_CASE("BufferPoolFactoryTest.testUniformDistribution and testCreateDestroy",
          "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int first = create(pool, 1, INT_MAX);
  CHECK(pool.pool_size(first) == kNumBuffers);
  const int second = create(pool, 1, INT_MAX);
  CHECK(pool.pool_size(first) == kNumBuffers / 2);
  CHECK(pool.pool_size(second) == kNumBuffers / 2);
  pool.destroy_buffer_pool(first);
  CHECK(pool.pool_size(second) == kNumBuffers);
}

TEST_CASE("BufferPoolFactoryTest.testUniformDistributionAllBuffers", "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int first = create(pool, kNumBuffers / 2, INT_MAX);
  CHECK(pool.pool_size(first) == kNumBuffers);
  const int second = create(pool, kNumBuffers / 2, INT_MAX);
  CHECK(pool.pool_size(first) == kNumBuffers / 2);
  CHECK(pool.pool_size(second) == kNumBuffers / 2);
}

TEST_CASE("BufferPoolFactoryTest.testUniformDistributionBounded1/2", "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int first = create(pool, 1, kNumBuffers);
  CHECK(pool.pool_size(first) == kNumBuffers);
  const int second = create(pool, 1, kNumBuffers);
  CHECK(pool.pool_size(first) == kNumBuffers / 2);
  CHECK(pool.pool_size(second) == kNumBuffers / 2);

  NetworkBufferPool bounded(kNumBuffers, 128);
  const int a = create(bounded, 1, 10);
  const int b = create(bounded, 1, 10);
  CHECK(bounded.pool_size(a) == 10);
  CHECK(bounded.pool_size(b) == 10);
}

TEST_CASE("BufferPoolFactoryTest.testUniformDistributionBounded3", "[network][buffers]") {
  NetworkBufferPool pool(3, 128);
  const int first = create(pool, 1, 10);
  CHECK(pool.pool_size(first) == 3);
  const int second = create(pool, 1, 10);
  CHECK(pool.pool_size(first) + pool.pool_size(second) == 3);
  CHECK(pool.pool_size(first) != 3);
  CHECK(pool.pool_size(second) != 3);
  const int third = create(pool, 1, 10);
  CHECK(pool.pool_size(first) == 1);
  CHECK(pool.pool_size(second) == 1);
  CHECK(pool.pool_size(third) == 1);
  CHECK(pool.available() == 0);
}

TEST_CASE(
    "BufferPoolFactoryTest.testUniformDistributionBounded4: unpooled segments shrink the "
    "pools and give back when recycled",
    "[network][buffers]") {
  NetworkBufferPool pool(10, 128);
  const int first = create(pool, 1, 10);
  CHECK(pool.pool_size(first) == 10);
  REQUIRE_FALSE(pool.request_unpooled(2));
  CHECK(pool.pool_size(first) == 8);
  const int second = create(pool, 1, 10);
  CHECK(pool.pool_size(first) == 4);
  CHECK(pool.pool_size(second) == 4);
  REQUIRE_FALSE(pool.request_unpooled(2));
  CHECK(pool.pool_size(first) == 3);
  CHECK(pool.pool_size(second) == 3);
  REQUIRE_FALSE(pool.request_unpooled(2));
  CHECK(pool.pool_size(first) == 2);
  CHECK(pool.pool_size(second) == 2);
  pool.recycle_unpooled(2);
  CHECK(pool.pool_size(first) == 3);
  CHECK(pool.pool_size(second) == 3);
  pool.recycle_unpooled(2);
  pool.recycle_unpooled(2);
  CHECK(pool.pool_size(first) == 5);
  CHECK(pool.pool_size(second) == 5);
  pool.destroy_buffer_pool(first);
  CHECK(pool.pool_size(second) == 10);
  // NetworkBufferPoolTest.testInsufficientNumberOfBuffers, the unpooled path
  const auto error = pool.request_unpooled(10);
  REQUIRE(error);
  CHECK(
      error->starts_with("Insufficient number of network buffers: required 10, but only 9 "
                         "available. The total number of network buffers is currently set to "
                         "10 of 128 bytes each."));
}

TEST_CASE("BufferPoolFactoryTest.testBufferRedistributionMixed1", "[network][buffers]") {
  NetworkBufferPool pool(kNumBuffers, 128);
  const int first = create(pool, 1, 10);
  const int second = create(pool, 1, 10);
  CHECK(pool.pool_size(first) == 10);
  CHECK(pool.pool_size(second) == 10);
  const int third = create(pool, 1, INT_MAX);
  const auto expected = [&](int avail, int max, int denominator) {
    return avail * std::min(avail, max - 1) / denominator + 1;
  };
  for (const auto& [p, max] : {std::pair{first, 10}, {second, 10}, {third, INT_MAX}}) {
    const int size = expected(kNumBuffers - 3, max, kNumBuffers - 3 + 20 - 2);
    CHECK((pool.pool_size(p) == size || pool.pool_size(p) == size + 1));
  }
  const int fourth = create(pool, 1, INT_MAX);
  for (const auto& [p, max] :
       {std::pair{first, 10}, {second, 10}, {third, INT_MAX}, {fourth, INT_MAX}}) {
    const int size = expected(kNumBuffers - 4, max, 2 * (kNumBuffers - 4) + 20 - 2);
    CHECK((pool.pool_size(p) == size || pool.pool_size(p) == size + 1));
  }
}

TEST_CASE(
    "BufferPoolFactoryTest.testAllDistributed: every segment is handed out up to the "
    "pools' maximum",
    "[network][buffers]") {
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    NetworkBufferPool pool(kNumBuffers, 128);
    std::vector<int> pools;
    std::int64_t max_total = 0;
    for (int j = 0; j < kNumBuffers / 32; ++j) {
      const int required = static_cast<int>(random() % 7) + 1;
      const int max =
          random() % 2 ? INT_MAX : std::max(1, static_cast<int>(random() % 10) + required);
      pools.push_back(create(pool, required, max));
      max_total = std::min<std::int64_t>(kNumBuffers, max_total + max);
      std::int64_t distributed = 0;
      for (int p : pools) distributed += pool.pool_size(p);
      REQUIRE(distributed == max_total);
    }
  }
}

namespace {

run::RunResult run_yaml(const std::string& flink, const std::string& cluster) {
  const std::string yaml = R"(
name: buffers
duration: 20 s
flink:
  version: "1.19"
  execution.checkpointing.interval: 2 s
  restart-strategy.type: none
)" + flink + R"(
cluster: )" + cluster + R"(
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 1000 records/s, record-size: 100 b }
    - { name: Agg, parallelism: 2, input: { from: Source, ship: hash }, cost: 10 us/record }
)";
  const auto loaded = scenario::load_string(yaml, "buffers.yaml");
  INFO(scenario::format_diagnostics(loaded.diagnostics));
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

bool logged(const run::RunResult& r, const std::string& text) {
  for (const auto& record : r.log) {
    if (record.message.find(text) != std::string::npos) return true;
    for (const std::string& line : record.throwable)
      if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// Two TaskManagers with one slot each: each holds Source (i) and Agg (i). Source reserves its
// partition's 2 + 1, Agg its gate's 1 and, once running, 2 exclusive buffers for its one remote
// channel (the other is local): 6 buffers per TaskManager.
TEST_CASE(
    "A task reserves M + 1 per partition and 1 per gate when set up, and 2 per remote "
    "channel when it starts reading (NettyShuffleUtils, InputGateSpecUtils)",
    "[network][buffers]") {
  const std::string cluster = "{ taskmanagers: 2, slots-per-taskmanager: 1 }";
  SECTION("6 buffers (192 kb) are enough") {
    const run::RunResult r = run_yaml(
        "  taskmanager.memory.network.min: 192kb\n  taskmanager.memory.network.max: 192kb\n",
        cluster);
    CHECK(r.final_status == ckptsim::model::JobStatus::running);
    CHECK(r.task_failures.empty());
  }
  SECTION("with 5, a remote channel's exclusive buffers fail the running task") {
    const run::RunResult r = run_yaml(
        "  taskmanager.memory.network.min: 160kb\n  taskmanager.memory.network.max: 160kb\n",
        cluster);
    REQUIRE_FALSE(r.task_failures.empty());
    CHECK(r.task_failures.front().vertex == 1);
    CHECK(r.task_failures.front().message.starts_with(
        "Insufficient number of network buffers: required 2, but only 1 available. The total "
        "number of network buffers is currently set to 5 of 32768 bytes each."));
    CHECK(logged(r, "switched from RUNNING to FAILED"));
    CHECK(r.final_status == ckptsim::model::JobStatus::failed);
  }
  SECTION("with 3, the gate's pool fails the task while it deploys") {
    const run::RunResult r =
        run_yaml("  taskmanager.memory.network.min: 96kb\n  taskmanager.memory.network.max: 96kb\n",
                 cluster);
    REQUIRE_FALSE(r.task_failures.empty());
    CHECK(r.task_failures.front().message.starts_with(
        "Insufficient number of network buffers: required 1, but only 0 available."));
    CHECK(logged(r, "switched from DEPLOYING to FAILED"));
  }
}

TEST_CASE(
    "All slots of a TaskManager share its pool: one TaskManager with both pipelines needs "
    "twice as many buffers, and its channels are local (no exclusive buffers)",
    "[network][buffers]") {
  // Per task: Source 3, Agg 1 (both channels local): 8 for the two pipelines.
  const std::string cluster = "{ taskmanagers: 1, slots-per-taskmanager: 2 }";
  CHECK(
      run_yaml("  taskmanager.memory.network.min: 256kb\n  taskmanager.memory.network.max: 256kb\n",
               cluster)
          .task_failures.empty());
  CHECK_FALSE(
      run_yaml("  taskmanager.memory.network.min: 224kb\n  taskmanager.memory.network.max: 224kb\n",
               cluster)
          .task_failures.empty());
}
