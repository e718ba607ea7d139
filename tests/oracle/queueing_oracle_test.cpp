// Analytic oracles (reference/anchors.md section 2.2): queueing theory on the network model.
// With one record per buffer, Poisson arrivals and exponential service, a channel is an M/M/1
// queue; with the default credits it is a finite buffer; Little's law holds per channel.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/simulation.hpp"
#include "sim/model/task/task_executor.hpp"

using namespace ckptsim;
using namespace ckptsim::model;

namespace {

struct NullJobManager final : JobMasterGateway {
  void acknowledge_checkpoint(std::int64_t, TaskRef, const SubtaskAck&, const TaskSnapshot&) override {}
  void decline_checkpoint(std::int64_t, TaskRef, const CheckpointException&) override {}
  void all_tasks_running() override {}
  void all_tasks_terminal() override {}
};

// Source (Poisson, rate lambda) -> Op (exponential service, mean 1/mu); one record per buffer.
Scenario mm1(double lambda, double mu, int buffers, std::uint64_t seed) {
  Scenario s;
  s.seed = seed;
  s.sample_period = 0;
  s.flink.buffers_per_channel = buffers;
  s.flink.max_buffers_per_channel = buffers;
  s.cluster.deploy_time = 0;
  VertexSpec source;
  source.name = "Source";
  source.records_per_second = lambda;
  source.arrivals = Variability::exponential;
  source.record_size = s.flink.segment_size;  // one record fills a buffer
  VertexSpec op;
  op.name = "Op";
  op.input = "Source";
  op.cost_per_record = static_cast<Duration>(1e9 / mu);
  op.service = Variability::exponential;
  s.job.vertices = {source, op};
  return s;
}

struct QueueRun {
  TaskExecutor::ChannelQueueStats channel;
  double latency_mean_ms = 0;  // end to end: source read to sink processed
};

QueueRun run_mm1(const Scenario& scenario, Duration length) {
  core::Simulation sim;
  Observer observer;
  NullJobManager jm;
  TaskExecutor tasks(sim, scenario, observer, jm);
  REQUIRE(tasks.track_channel_queue({0, 0, 0}, {1, 0, 0}));
  tasks.deploy(nullptr);
  sim.run_until(length);
  return {*tasks.channel_queue_stats({0, 0, 0}, {1, 0, 0}), tasks.end_to_end_latency().mean_ms()};
}

}  // namespace

TEST_CASE("oracle: M/M/1 at rho = 0.9: the channel's mean waiting time Wq = rho / (mu - lambda), "
          "the end-to-end latency W = 1 / (mu - lambda)",
          "[oracle][latency]") {
  // The operator is the sink: a record's latency is its wait in the channel plus its service.
  const double lambda = 900, mu = 1000;
  double waiting = 0, latency_ms = 0;
  const int seeds = 4;
  for (int seed = 1; seed <= seeds; ++seed) {
    const QueueRun r =
        run_mm1(mm1(lambda, mu, 100000, static_cast<std::uint64_t>(seed)), core::minutes(30));
    waiting += r.channel.mean_sojourn_seconds / seeds;
    latency_ms += r.latency_mean_ms / seeds;
  }
  CHECK(waiting == Approx((lambda / mu) / (mu - lambda)).epsilon(0.02));  // 9 ms
  CHECK(latency_ms == Approx(1e3 / (mu - lambda)).epsilon(0.02));         // 10 ms
}

// The three quantities from three sources: L, the time series' queue lengths sampled every
// second (the sampler's counts of queued buffers: the source's subpartition plus the operator's
// input channel); lambda, the records the source wrote per second (the time series' records
// out, one record per buffer); W, the channel's mean per-buffer sojourn. The channel's own
// occupancy integral is not used: with it, L = lambda W holds by construction.
TEST_CASE("oracle: Little's law per channel (L = lambda W), L, lambda and W measured apart",
          "[oracle]") {
  struct Samples final : Observer {
    double queued = 0;     // sum over samples of the buffers queued at the sample's end
    double written = 0;    // records the source wrote
    double seconds = 0;    // time the source's samples cover
    int samples = 0;
    void task_sample(SimTime, TaskRef t, const TaskSample& s) override {
      if (t.vertex == 0) {
        queued += s.output_buffers;
        written += static_cast<double>(s.records_out);
        seconds += core::to_seconds(s.period);
        ++samples;
      } else {
        queued += s.input_buffers;
      }
    }
  };
  Scenario scenario = mm1(800, 1000, 100000, 7);
  scenario.sample_period = core::kSecond;
  core::Simulation sim;
  Samples samples;
  NullJobManager jm;
  TaskExecutor tasks(sim, scenario, samples, jm);
  REQUIRE(tasks.track_channel_queue({0, 0, 0}, {1, 0, 0}));
  tasks.deploy(nullptr);
  sim.run_until(core::minutes(60));
  REQUIRE(samples.samples > 3000);
  const double l = samples.queued / samples.samples;
  const double lambda = samples.written / samples.seconds;
  const double w = tasks.channel_queue_stats({0, 0, 0}, {1, 0, 0})->mean_sojourn_seconds;
  CHECK(lambda == Approx(800).epsilon(0.02));
  CHECK(l == Approx(lambda * w).epsilon(0.05));
  CHECK(l == Approx(0.8 * 0.8 / 0.2).epsilon(0.1));  // M/M/1: Lq = rho^2 / (1 - rho)
}

TEST_CASE("oracle: two-station tandem with a finite buffer, X = mu1 (1 - rho^(K+1)) / "
          "(1 - rho^(K+2))",
          "[oracle]") {
  // A saturating source keeps Op1 (exponential, mu1) always supplied; Op1 -> Op2 (exponential,
  // mu2) is a local channel: up to max-buffers-per-channel M buffers in Op1's subpartition plus
  // the one the local input channel holds, so K = M + 1 records wait in front of Op2. Op1 only
  // starts a record while its output is available (blocking before service).
  const double mu1 = 1000, mu2 = 1100;
  const int m = 3;
  Scenario s;
  s.seed = 11;
  s.sample_period = 0;
  s.flink.max_buffers_per_channel = m;
  s.flink.buffers_per_channel = 1000;  // output pool large enough not to bind
  s.cluster.deploy_time = 0;
  VertexSpec source;
  source.name = "Source";
  source.records_per_second = 1e6;
  source.record_size = s.flink.segment_size;
  VertexSpec op1;
  op1.name = "Op1";
  op1.input = "Source";
  op1.cost_per_record = static_cast<Duration>(1e9 / mu1);
  op1.service = Variability::exponential;
  op1.record_size = s.flink.segment_size;
  VertexSpec op2 = op1;
  op2.name = "Op2";
  op2.input = "Op1";
  op2.cost_per_record = static_cast<Duration>(1e9 / mu2);
  s.job.vertices = {source, op1, op2};

  core::Simulation sim;
  Observer observer;
  NullJobManager jm;
  TaskExecutor tasks(sim, s, observer, jm);
  REQUIRE(tasks.track_channel_queue({1, 0, 0}, {2, 0, 0}));
  tasks.deploy(nullptr);
  sim.run_until(core::minutes(30));
  const auto st = *tasks.channel_queue_stats({1, 0, 0}, {2, 0, 0});
  REQUIRE(tasks.channel_stats({1, 0, 0}, {2, 0, 0})->local);
  const double rho = mu1 / mu2;
  const int k = m + 1;
  const double expected = mu1 * (1 - std::pow(rho, k + 1)) / (1 - std::pow(rho, k + 2));
  CHECK(st.throughput_per_second == Approx(expected).epsilon(0.01));
  // Not the unbuffered rate: the finite buffer costs throughput.
  CHECK(st.throughput_per_second < 0.97 * mu1);
}
