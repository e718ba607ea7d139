// Issue 17's equivalence test: every scenario under scenarios/, the benchmarks' shapes and a
// randomized family of jobs, each run with network: exact and network: hybrid, must agree within
// the tolerances of equivalence.hpp. And the comparison itself must catch what it is there for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/shapes.hpp"
#include "sim/core/random.hpp"
#include "sim/run/live_run.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/equivalence/equivalence.hpp"

namespace ckptsim::tests {
namespace {

namespace fs = std::filesystem;

struct ModeRuns {
  run::RunResult exact;
  run::RunResult hybrid;
};

// The scale shape at P = 32, 10 MB/s per source subtask, for a simulated minute, with a sample a
// second (bench/shapes.hpp's has none).
model::Scenario sampled_scale32() {
  model::Scenario s = bench::scale(32, 10, 60);
  s.sample_period = core::kSecond;
  return s;
}

ModeRuns run_both(model::Scenario s) {
  ModeRuns r;
  s.network = model::NetworkMode::exact;
  r.exact = run::run(s);
  s.network = model::NetworkMode::hybrid;
  r.hybrid = run::run(s);
  return r;
}

std::string lines(const std::vector<std::string>& d) {
  std::string out;
  for (const std::string& l : d) out += l + "\n";
  return out;
}

// The timeline action that sets the Source's rate to `factor` times its rate at `at`.
void change_source_rate(model::Scenario& s, core::SimTime at, double factor) {
  model::TimelineAction a;
  a.kind = model::ActionKind::set_rate;
  a.at = at;
  a.vertex = "Source";
  a.rate = factor * s.job.vertices.front().records_per_second;
  s.timeline.push_back(a);
}

// Scenarios and shapes checked so far, and how much of their time hybrid skipped.
struct Tally {
  int runs = 0;
  int skipping = 0;
  void add(const ModeRuns& r) {
    ++runs;
    if (r.hybrid.network_skips > 0) ++skipping;
  }
};

}  // namespace

TEST_CASE("every scenario under scenarios/ agrees in both network modes", "[equivalence]") {
  const fs::path root = CKPTSIM_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root / "scenarios"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  Tally tally;
  for (const fs::path& file : files) {
    const auto loaded = scenario::load_file(file.string());
    REQUIRE(loaded.ok());
    const ModeRuns r = run_both(*loaded.scenario);
    tally.add(r);
    INFO(fs::relative(file, root).string());
    CHECK(r.exact.network == model::NetworkMode::exact);
    CHECK(r.hybrid.network == model::NetworkMode::hybrid);
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  }
  WARN("hybrid skipped steady periods in " << tally.skipping << " of " << tally.runs
                                           << " scenarios");
}

TEST_CASE("the benchmarks' shapes agree in both network modes", "[equivalence]") {
  for (const int p : {4, 32}) {
    for (const auto barriers : {bench::Barriers::aligned, bench::Barriers::unaligned}) {
      model::Scenario s = bench::b2(p, barriers);
      s.duration = core::seconds(10);
      s.sample_period = core::kSecond;
      const ModeRuns r = run_both(s);
      INFO("b2 P=" << p << (barriers == bench::Barriers::aligned ? " aligned" : " unaligned"));
      CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
    }
  }
  // P = 32 is the shape hybrid is for. At P = 8 and 16 the flushes of the few input channels
  // land on either side of a look, and the Sink's records per period swing by a few flushes:
  // hybrid skips them as lumps (HybridNetwork::steady).
  for (const int p : {32, 16, 8}) {
    model::Scenario s = bench::production(300, p);
    s.sample_period = core::kSecond;
    const ModeRuns r = run_both(s);
    INFO("production P=" << p << ", 5 min");
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
    // Most of its time is steady. Looks every 200 ms leave little more than the checkpoints
    // themselves to run buffer by buffer (whole seconds left 48 s of 60).
    CHECK(r.hybrid.network_skipped > core::seconds(280));
    CHECK(r.hybrid.events_executed * 10 < r.exact.events_executed);
    // Its first checkpoint's RocksDB flush holds all the state written since the start, so the
    // second's synchronous parts differ; the third's are the second's, and its window is
    // recorded: the fourth and fifth are replayed.
    CHECK(r.hybrid.network_replayed == 2);
  }
  {
    model::Scenario s = bench::scale(8, 1, 60);
    s.sample_period = core::kSecond;
    const ModeRuns r = run_both(s);
    INFO("scale P=8, 1 MB/s, 1 min");
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  }
  {
    // 32 input channels' flushes land on either side of a look: a consumer's records, and so its
    // busy time, swing between periods by what the periods show (HybridNetwork::steady). Its
    // checkpoints take 0.7 s of each 10 s interval, uploading.
    model::Scenario s = sampled_scale32();
    const ModeRuns r = run_both(s);
    INFO("scale P=32, 10 MB/s, 1 min");
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
    // A checkpoint's completion (uploads, acknowledgements, notifications) is quiet: a skip runs
    // through it, and ends at the last look before the next trigger (45 s skipped when hybrid
    // waited for the job to settle after it, 47 s when a skip stopped before it). The Process's
    // records in the look period after a checkpoint swing 36 % below the mean (those of the
    // period before, which held the barriers, as far above it): the job has caught up when the
    // two together grew as the reference did, and it skips a period sooner (49 s without that).
    // Its checkpoints from the fourth on are replayed (HybridNetwork::replay_checkpoint): 51.6 s
    // skipped, 49.7 s when each ran buffer by buffer.
    CHECK(r.hybrid.network_replayed >= 3);
    CHECK(r.hybrid.network_skipped > core::milliseconds(51000));
  }
}

// A checkpoint that starts where a recorded one did (the same phase of the looks, the same
// reference, nothing else in its window) is replayed: each subtask takes it when and as the
// recorded one did, the window's samples and latencies are the recorded ones, and no barrier
// moves. Its statistics are what the exact run reports: each subtask's alignment and start delay
// within 5 ms, its sizes within 2 %.
TEST_CASE("a replayed checkpoint reports what the exact run does", "[equivalence]") {
  model::Scenario s = sampled_scale32();
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  REQUIRE(r.hybrid.network_replayed >= 3);
  REQUIRE(r.exact.checkpoints.size() == r.hybrid.checkpoints.size());
  int compared = 0;
  for (std::size_t c = 0; c < r.exact.checkpoints.size(); ++c) {
    const auto& e = r.exact.checkpoints[c];
    const auto& h = r.hybrid.checkpoints[c];
    REQUIRE(e.subtasks.size() == h.subtasks.size());
    for (std::size_t v = 0; v < e.subtasks.size(); ++v)
      for (std::size_t i = 0; i < e.subtasks[v].size(); ++i) {
        const run::SubtaskStats& a = e.subtasks[v][i];
        const run::SubtaskStats& b = h.subtasks[v][i];
        INFO("checkpoint " << e.id << " vertex " << v << " subtask " << i);
        CHECK(a.acknowledged == b.acknowledged);
        CHECK(std::abs(a.alignment_duration - b.alignment_duration) <= core::milliseconds(5));
        CHECK(std::abs(a.start_delay - b.start_delay) <= core::milliseconds(5));
        CHECK(std::abs(a.sync_duration - b.sync_duration) <= core::milliseconds(1));
        CHECK(std::abs(a.ack_time - b.ack_time) <= core::milliseconds(5));
        CHECK(std::abs(static_cast<double>(a.state_size - b.state_size)) <=
              0.02 * static_cast<double>(a.state_size));
        CHECK(std::abs(static_cast<double>(a.processed_bytes - b.processed_bytes)) <=
              0.02 * static_cast<double>(a.processed_bytes) + 1);
        ++compared;
      }
  }
  CHECK(compared > 0);
}

// A replayed checkpoint's snapshot reads the bytes since the last checkpoint as the recorded one
// did (the records the upstream barriers' broadcast flushed early came before it: Window::Taken::
// surge), and its window ends at the recorded value. A synchronous part that costs 1 ms per MiB
// since the checkpoint (about 95 ms) then takes what the exact run's does; without the surge it
// took 1.8 ms less. Its sync parts differ by a few records' worth from checkpoint to checkpoint,
// within record_window's 1 % (exactly equal ones were required before, and none was recorded).
TEST_CASE("a replayed checkpoint's bytes since the checkpoint are the exact run's",
          "[equivalence]") {
  model::Scenario s = sampled_scale32();
  s.job.vertices.at(2).sync_snapshot.per_mb_since_checkpoint = core::milliseconds(1);
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  REQUIRE(r.hybrid.network_replayed >= 2);
  REQUIRE(r.exact.checkpoints.size() == r.hybrid.checkpoints.size());
  for (std::size_t c = 1; c < r.exact.checkpoints.size(); ++c)
    for (std::size_t i = 0; i < r.exact.checkpoints[c].subtasks.at(2).size(); ++i) {
      const core::Duration e = r.exact.checkpoints[c].subtasks[2][i].sync_duration;
      const core::Duration h = r.hybrid.checkpoints[c].subtasks[2][i].sync_duration;
      INFO("checkpoint " << r.exact.checkpoints[c].id << " Process " << i);
      CHECK(e > core::milliseconds(50));
      CHECK(std::abs(e - h) <= core::milliseconds(1));
    }
}

// A replay takes a recorded window's RPCs to the sources: with RPC latencies that spread (a
// scenario file's default), every checkpoint's differ, so none is replayed. (Nor is one where a
// disturbance falls on the look that ends its window: "a job that caught up" above, whose rate
// change on such a look failed the samples until can_replay looked past the window's end.)
TEST_CASE("a checkpoint is replayed only where its RPCs' latencies are fixed", "[equivalence]") {
  model::Scenario s = sampled_scale32();
  s.cluster.rpc_latency = {core::milliseconds(2), 0.8, 0.01, core::milliseconds(20), 0.5};
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_replayed == 0);
  CHECK(r.hybrid.network_skipped > core::seconds(40));
}

// Nor where the JobManager's steps before the RPCs take longer from checkpoint to checkpoint
// (an operator coordinator whose checkpoint call grows, 2 ms more each time): a checkpoint whose
// RPCs went out later than the recorded one's is not replayed, and none is recorded.
TEST_CASE("a checkpoint whose coordinator takes longer each time is not replayed",
          "[equivalence]") {
  model::Scenario s = sampled_scale32();
  model::MasterStepSpec coordinator;
  coordinator.name = "Enumerator";
  coordinator.duration.base = core::milliseconds(5);
  coordinator.duration.per_checkpoint = core::milliseconds(2);
  s.jobmanager.master_steps.push_back(coordinator);
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_replayed == 0);
  coordinator.duration.per_checkpoint = 0;
  s.jobmanager.master_steps = {coordinator};
  s.network = model::NetworkMode::hybrid;
  CHECK(run::run(s).network_replayed >= 3);  // a constant one does not stop them
}

// A job that caught up after a disturbance skips again (HybridNetwork::on_event): the periods
// from the look the last skip ended at to now grew as the reference did, across the disturbance.
// Only a whole period after the last look that saw a disturbance: here the Source's rate doubles
// on a look (at 24.2 s, after the checkpoint at 23.86 s), and the two periods from the look at
// 23.8 s did grow as the reference did, for the new rate has not shown yet. With the Sink's
// synchronous part 200 ms long, the look at 24.0 s finds it still in it (not steady), and the
// rate change pending then must still count when it runs.
TEST_CASE("a job that caught up skips again only a whole period after the last disturbance",
          "[equivalence]") {
  for (const core::Duration sink_sync : {core::milliseconds(1), core::milliseconds(200)}) {
    model::Scenario s = sampled_scale32();
    s.job.vertices.back().sync_snapshot = sink_sync;
    change_source_rate(s, core::milliseconds(24200), 2);
    const ModeRuns r = run_both(s);
    INFO("the Sink's synchronous part " << sink_sync / core::kMillisecond << " ms");
    // The case's timing: a checkpoint triggered in the look period before the look at 24.0 s
    // (the rate change then runs on the look after that one).
    CHECK(std::any_of(r.hybrid.checkpoints.begin(), r.hybrid.checkpoints.end(), [](const auto& c) {
      return c.trigger_time > core::milliseconds(23800) && c.trigger_time < core::seconds(24);
    }));
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
    CHECK(r.hybrid.network_skipped > core::seconds(10));
  }
}

// A reference serves kReferenceLifetime (10 min) after it is taken; a new one that finds the
// one it replaces still right (its periods grew as that one's did, its latencies alike) serves
// twice as long, up to 80 min (HybridNetwork::on_event). A job without slow beats takes its
// references at the start, 10 min and 30 min into a 45-minute run (at 10, 20, 30 and 40 min too
// when every reference served 10 min); one whose rate changes takes a new reference after the
// change, which finds the old one wrong and serves 10 min.
TEST_CASE("a reference that a new one finds still right serves twice as long",
          "[equivalence]") {
  model::Scenario s = bench::scale(32, 10, 45 * 60);
  s.sample_period = core::kSecond;
  s.network = model::NetworkMode::hybrid;
  const run::RunResult steady = run::run(s);
  CHECK(steady.network_references == 3);
  // Each reference taken runs about 4.7 s buffer by buffer (2,565.8 s skipped with 5).
  CHECK(steady.network_skipped > core::seconds(2570));
  change_source_rate(s, core::minutes(15), 0.8);
  const run::RunResult changed = run::run(s);
  INFO("skipped " << changed.network_skipped / core::kMillisecond << " ms");
  // The start, 10 min (alike: 20 min), the change at 15 min (not alike: 10 min), 25 min
  // (alike: 20 min): 4.
  CHECK(changed.network_references == 4);
}

// A run advanced in slices (as serve advances one) has its skips end at each slice's end, which
// leaves extrapolated looks behind; a reference is never made of those (they are the old
// reference's own growth, and would find it right every time). Here, slices of 7 s, the run
// takes the references a whole run takes and skips nearly as much (2,504.8 s against 2,575.2 s:
// each skip also ends at a slice's end). With 1 s slices hybrid skips nothing: no slice holds a
// whole look period after a disturbance.
TEST_CASE("a run advanced in slices takes its references as a whole run does", "[equivalence]") {
  model::Scenario s = bench::scale(32, 10, 45 * 60);
  s.sample_period = core::kSecond;
  s.network = model::NetworkMode::hybrid;
  const run::RunResult whole = run::run(s);
  run::LiveRun live(s, std::nullopt);
  for (core::SimTime t = core::seconds(7); !live.finished(); t += core::seconds(7)) live.advance(t);
  const run::RunResult sliced = live.finish(false);
  CHECK(sliced.network_references == whole.network_references);
  CHECK(sliced.network_skipped > whole.network_skipped - core::minutes(2));
}

// Both modes agree over a run whose references serve 10 and 20 minutes and then 40 (the
// production shape built in code at P = 16: references at the start, 10 and 30 min; at P = 8 its
// renewals find the flushes' lumps moved, and it takes 5).
TEST_CASE("a job whose references serve longer agrees in both network modes", "[equivalence]") {
  model::Scenario s = bench::production(45 * 60, 16);
  s.sample_period = core::kSecond;
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_references == 3);
}

// What a quiet event sets off at a subtask is a disturbance (HybridNetwork::on_event, resume): a
// skip that runs through a checkpoint's completion ends at a notification that starts a mail, and
// a look that finds a mail started since the one before holds the next skip back by a period,
// however little the mail costs. Here each Map subtask's notifyCheckpointComplete runs a 50 us
// mail, too little for the thread times to show it (within 0.5 ms/s), so only those checks can.
// The skip that ends between looks still agrees with the exact run.
TEST_CASE("a mail started between two looks holds hybrid's next skip back", "[equivalence]") {
  model::Scenario s = sampled_scale32();
  s.network = model::NetworkMode::hybrid;
  const run::RunResult plain = run::run(s);
  s.job.vertices.at(1).notify_complete = core::microseconds(50);
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  const run::RunResult& mail = r.hybrid;
  INFO("skipped " << plain.network_skipped / core::kMillisecond << " ms without the mail, "
                  << mail.network_skipped / core::kMillisecond << " ms with it");
  const auto completed = [](const run::RunResult& result) {
    return std::count_if(result.checkpoints.begin(), result.checkpoints.end(), [](const auto& c) {
      return c.status == run::CheckpointStatus::completed;
    });
  };
  CHECK(completed(plain) == completed(mail));
  CHECK(completed(mail) >= 4);
  CHECK(mail.network_skipped > core::seconds(40));  // it skips, only less
  // A period (200 ms) less for each of the checkpoints whose notification the mail follows.
  CHECK(mail.network_skipped <= plain.network_skipped - core::milliseconds(200) * 4);
}

// A skip parks its data events just after the first notification that may run a mail
// (HybridNetwork::park). With spread RPC latencies the notifications arrive one subtask at a time,
// and the first may be one of a vertex without a notify-complete cost: it runs no mail, the skip
// goes on to the next stop, and the data events must first go on from where they were parked
// (moving the clock past them threw "an event would run before the clock" at first).
TEST_CASE("a skip goes on past a notification that ran no mail", "[equivalence]") {
  model::Scenario s = sampled_scale32();
  s.cluster.rpc_latency = {core::milliseconds(2), 0.8, 0.01, core::milliseconds(20), 0.5};
  const int v = GENERATE(1, 3);
  s.job.vertices.at(static_cast<std::size_t>(v)).notify_complete = core::microseconds(50);
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_skipped > core::seconds(30));
}

// A skip grows the counters when it ends, and the quiet events within it run before that: a
// notifyCheckpointComplete whose cost grows with the bytes since the checkpoint would read them
// short, so it is not quiet (TaskExecutor::quiet), and the mail it runs agrees with the exact
// run.
TEST_CASE("a notification whose cost grows with the data is not run inside a skip",
          "[equivalence]") {
  model::Scenario s = sampled_scale32();
  s.job.vertices.at(1).notify_complete.per_mb_since_checkpoint = core::milliseconds(5);
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_skipped > core::seconds(40));
}

// bench/results/sweep.sh sweeps bench/production.yaml: the production job and configuration of
// bench/shapes.hpp, written as a scenario file (whose cluster gets a file's spread latencies).
TEST_CASE("bench/production.yaml holds bench/shapes.hpp's production job", "[equivalence]") {
  const auto loaded =
      scenario::load_file((fs::path(CKPTSIM_SOURCE_DIR) / "bench" / "production.yaml").string());
  REQUIRE(loaded.ok());
  const model::Scenario& file = *loaded.scenario;
  const model::Scenario code = bench::production(3600);
  CHECK(file.duration == code.duration);
  CHECK(file.flink.version == code.flink.version);
  CHECK(file.flink.checkpointing.interval == code.flink.checkpointing.interval);
  CHECK(file.flink.state_backend == code.flink.state_backend);
  CHECK(file.flink.incremental == code.flink.incremental);
  CHECK(file.cluster.taskmanagers == code.cluster.taskmanagers);
  CHECK(file.cluster.slots_per_taskmanager == code.cluster.slots_per_taskmanager);
  REQUIRE(file.job.vertices.size() == code.job.vertices.size());
  for (std::size_t v = 0; v < code.job.vertices.size(); ++v) {
    const model::VertexSpec& f = file.job.vertices[v];
    const model::VertexSpec& c = code.job.vertices[v];
    INFO(c.name);
    CHECK(f.name == c.name);
    CHECK(f.parallelism == c.parallelism);
    CHECK(f.input == c.input);
    CHECK(f.ship == c.ship);
    CHECK(f.records_per_second == c.records_per_second);
    CHECK(f.record_size == c.record_size);
    CHECK(f.cost_per_record == c.cost_per_record);
    CHECK(f.state_size == c.state_size);
  }
}

// The file's job at P = 8 for its hour: its first reference's mean latency (116.4 ms) is 6 %
// under the hour's (124.3 ms exact). References expire (HybridNetwork::kReferenceLifetime).
TEST_CASE("bench/production.yaml at P = 8 agrees in both network modes over its hour",
          "[equivalence]") {
  const auto loaded =
      scenario::load_file((fs::path(CKPTSIM_SOURCE_DIR) / "bench" / "production.yaml").string());
  REQUIRE(loaded.ok());
  model::Scenario s = *loaded.scenario;
  REQUIRE(s.duration == core::kHour);
  for (model::VertexSpec& v : s.job.vertices) v.parallelism = 8;
  s.cluster.taskmanagers = 2;
  const ModeRuns r = run_both(s);
  CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  CHECK(r.hybrid.network_skipped > core::minutes(55));
  // Its latency drifts: most renewals find the reference before moved, and serve 10 min again
  // (5 references; 6 when each served 10 min, 3 for a job without slow beats).
  CHECK(r.hybrid.network_references == 5);
}

// A random job: 2 to 4 vertices in a chain, parallelism 1 to 6, each edge forward (where the
// parallelisms match), rebalance or hash, costs that leave a vertex idle or saturate it, aligned or
// unaligned checkpoints every 3 to 40 s over 1 to 3 minutes, and sometimes a rate change or a stall
// on the timeline.
model::Scenario random_job(std::uint64_t seed) {
  core::RandomStream rng(seed, "equivalence");
  const auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(rng.uniform01() * (hi - lo + 1)) % (hi - lo + 1);
  };
  model::Scenario s;
  s.name = "random-" + std::to_string(seed);
  s.seed = seed;
  s.duration = core::seconds(pick(60, 180));
  s.flink.checkpointing.interval = core::seconds(pick(3, 40));
  s.flink.checkpointing.unaligned = pick(0, 3) == 0;
  s.cluster.taskmanagers = pick(1, 4);
  s.cluster.slots_per_taskmanager = 6;
  const int vertices = pick(2, 4);
  for (int v = 0; v < vertices; ++v) {
    model::VertexSpec spec;
    spec.name = "V" + std::to_string(v);
    spec.parallelism = pick(1, 6);
    spec.record_size = 100 * pick(1, 10);
    if (v == 0) {
      // Half of the sources read less than a buffer per buffer timeout (their step is the
      // timeout, in step with the sample period), half up to 20 MB/s (a step of a buffer).
      spec.records_per_second = pick(0, 1) == 0 ? 100.0 * pick(1, 30) : 500.0 * pick(1, 40);
      if (spec.records_per_second <= 3000) spec.record_size = 100;
    } else {
      const model::VertexSpec& up = s.job.vertices.back();
      spec.input = up.name;
      const int ship = pick(0, 2);
      spec.ship = ship == 0 && up.parallelism == spec.parallelism ? model::ShipStrategy::forward
                  : ship == 1                                     ? model::ShipStrategy::hash
                                                                  : model::ShipStrategy::rebalance;
      // A utilization of 0 to 120 % of the source's records (every record reaches every vertex).
      const double records_per_second =
          s.job.vertices.front().records_per_second * s.job.vertices.front().parallelism;
      spec.cost_per_record = static_cast<core::Duration>(1e9 * 0.01 * pick(0, 120) *
                                                         spec.parallelism / records_per_second);
      spec.state_size = 1000LL * 1000 * pick(0, 50);
    }
    s.job.vertices.push_back(spec);
  }
  if (pick(0, 2) == 0) {
    model::TimelineAction a;
    a.kind = model::ActionKind::set_rate;
    a.at = core::seconds(pick(5, 30));
    a.vertex = s.job.vertices.front().name;
    a.rate = 500.0 * pick(1, 40);
    s.timeline.push_back(a);
  }
  if (pick(0, 2) == 0) {
    model::TimelineAction a;
    a.kind = model::ActionKind::stall;
    a.at = core::seconds(pick(5, 30));
    a.vertex = s.job.vertices.back().name;
    a.duration = core::seconds(pick(1, 10));
    s.timeline.push_back(a);
  }
  std::stable_sort(s.timeline.begin(), s.timeline.end(),
                   [](const auto& x, const auto& y) { return x.at < y.at; });
  return s;
}

// Seeds 1 to 300; CKPTSIM_EQUIVALENCE_SEEDS=FROM-TO runs others (a longer soak, by hand).
TEST_CASE("a randomized family of jobs agrees in both network modes", "[equivalence]") {
  std::uint64_t first = 1;
  std::uint64_t last = 300;
  if (const char* range = std::getenv("CKPTSIM_EQUIVALENCE_SEEDS"))
    REQUIRE(std::sscanf(range, "%" SCNu64 "-%" SCNu64, &first, &last) == 2);
  Tally tally;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    const model::Scenario s = random_job(seed);
    const ModeRuns r = run_both(s);
    tally.add(r);
    INFO(s.name);
    CHECK(lines(network_differences(r.exact, r.hybrid)) == "");
  }
  WARN("hybrid skipped steady periods in " << tally.skipping << " of " << tally.runs
                                           << " random jobs");
}

TEST_CASE("the equivalence check catches what it is there for", "[equivalence]") {
  model::Scenario s = bench::scale(2, 1, 30);
  s.sample_period = core::kSecond;
  s.flink.checkpointing.interval = core::seconds(5);
  const run::RunResult base = run::run(s);
  REQUIRE(base.counts.completed >= 4);
  REQUIRE(!base.timeseries.empty());
  CHECK(network_differences(base, base).empty());

  SECTION("a checkpoint 3 % slower (beyond 2 % and 5 ms)") {
    run::RunResult r = base;
    run::CheckpointRecord& c = r.checkpoints[2];
    const core::Duration took = c.end_time - c.trigger_time;
    c.end_time =
        c.trigger_time + std::max<core::Duration>(took * 103 / 100, took + core::milliseconds(6));
    CHECK(network_differences(base, r).size() == 1);
  }
  SECTION("a checkpoint 4 ms slower (within 5 ms)") {
    run::RunResult r = base;
    r.checkpoints[2].end_time += core::milliseconds(4);
    CHECK(network_differences(base, r).empty());
  }
  SECTION("a status") {
    run::RunResult r = base;
    r.checkpoints[1].status = run::CheckpointStatus::failed;
    CHECK(!network_differences(base, r).empty());
  }
  SECTION("a failover") {
    run::RunResult r = base;
    ++r.failovers;
    CHECK(!network_differences(base, r).empty());
  }
  SECTION("latency p99 6 % up") {
    run::RunResult r = base;
    r.end_to_end_latency.p99_ms *= 1.11;
    CHECK(!network_differences(base, r).empty());
  }
  SECTION("latency mean 6 % up, 4 % down") {
    run::RunResult r = base;
    r.end_to_end_latency.mean_ms *= 1.06;
    CHECK(network_differences(base, r).size() == 1);
    r.end_to_end_latency.mean_ms = base.end_to_end_latency.mean_ms * 0.96;
    CHECK(network_differences(base, r).empty());
  }
  SECTION("3 ms/s more busy time in one sample") {
    run::RunResult r = base;
    r.timeseries[r.timeseries.size() / 2].sample.busy += core::milliseconds(3);
    CHECK(!network_differences(base, r).empty());
  }
  SECTION("records lost") {
    run::RunResult r = base;
    r.end_to_end_latency.records = r.end_to_end_latency.records * 97 / 100;
    CHECK(!network_differences(base, r).empty());
  }
}

}  // namespace ckptsim::tests
