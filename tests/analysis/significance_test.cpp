// analysis/significance.hpp and analysis/user_settings.hpp: a setting is better only beyond noise
// and beyond 1 % of the mean; ties are reported as ties; conditions are never a "best setting".
#include <catch2/catch.hpp>

#include "analysis/significance.hpp"
#include "analysis/sweep.hpp"
#include "analysis/user_settings.hpp"

namespace ckptsim::analysis {
namespace {

// The estimate of `values`, as a sweep computes it over seeds.
Estimate of(std::vector<double> values) {
  return estimate(values);
}

SettingSummary setting(std::vector<std::string> values, double failovers_spread, double failovers,
                       double p99) {
  SettingSummary s;
  s.values = std::move(values);
  s.runs = 5;
  s.metrics.assign(kMetricCount, Estimate{});
  s.metrics[static_cast<std::size_t>(Metric::failovers)] =
      of({failovers - failovers_spread, failovers, failovers, failovers,
          failovers + failovers_spread});
  s.metrics[static_cast<std::size_t>(Metric::p99_duration)] = of({p99, p99, p99, p99, p99});
  return s;
}

Point point(std::vector<std::string> keys, std::vector<std::string> values, std::size_t setting,
            std::uint64_t seed, double failovers, double p99) {
  Point p;
  p.scenario = "s.yaml";
  p.keys = std::move(keys);
  p.values = std::move(values);
  p.setting = setting;
  p.settings = 4;
  p.seed = seed;
  p.metrics.assign(kMetricCount, std::nullopt);
  p.metrics[static_cast<std::size_t>(Metric::failovers)] = failovers;
  p.metrics[static_cast<std::size_t>(Metric::p99_duration)] = p99;
  return p;
}

}  // namespace

TEST_CASE("significance: a difference inside the noise of the seeds is a tie") {
  // Means 3.0 and 2.6 with a spread of +-1 over 5 seeds: Welch's t is about 0.9.
  CHECK(compare_metric(Metric::failovers, of({2, 3, 3, 3, 4}), of({1.6, 2.6, 2.6, 2.6, 3.6})) ==
        Outcome::tie);
  // The same means with a spread of +-0.1 separate.
  CHECK(compare_metric(Metric::failovers, of({2.9, 3, 3, 3, 3.1}), of({2.5, 2.6, 2.6, 2.6, 2.7})) ==
        Outcome::worse);
  CHECK(compare_metric(Metric::failovers, of({2.5, 2.6, 2.6, 2.6, 2.7}), of({2.9, 3, 3, 3, 3.1})) ==
        Outcome::better);
}

TEST_CASE("significance: a fourth-digit difference without any spread is a tie, not a win") {
  // The case of issue 19: deterministic p99 durations 1234.5 and 1234.1 ms.
  CHECK(compare_metric(Metric::p99_duration, of({1234.1, 1234.1}), of({1234.5, 1234.5})) ==
        Outcome::tie);
  // Beyond 1 % of the mean, deterministic values differ.
  CHECK(compare_metric(Metric::p99_duration, of({1200, 1200}), of({1234.5, 1234.5})) ==
        Outcome::better);
  // Below a millisecond a duration never differs, however small the values.
  CHECK(compare_metric(Metric::p99_duration, of({0.2}), of({0.9})) == Outcome::tie);
  // Counts: 0 failovers against 1 is a difference.
  CHECK(compare_metric(Metric::failovers, of({0, 0}), of({1, 1})) == Outcome::better);
}

TEST_CASE("significance: a missing value loses to any value; maximize turns the order") {
  CHECK(compare_metric(Metric::p99_duration, Estimate{}, of({5000})) == Outcome::worse);
  CHECK(compare_metric(Metric::p99_duration, of({5000}), Estimate{}) == Outcome::better);
  CHECK(compare_metric(Metric::completed_checkpoints, of({10, 10}), of({5, 5}), true) ==
        Outcome::better);
}

TEST_CASE("significance: the first objective term that separates decides; none is a tie") {
  const std::vector<ObjectiveTerm> objective = {{Metric::failovers, false},
                                                {Metric::p99_duration, false}};
  const SettingSummary a = setting({"a"}, 1, 3, 1000);
  const SettingSummary b = setting({"b"}, 1, 2.6, 2000);  // failovers tie, p99 worse
  const SettingSummary c = setting({"c"}, 1, 3, 1000.5);  // ties a on both
  CHECK(rank(a, b, objective).outcome == Outcome::better);
  REQUIRE(rank(a, b, objective).decided_by);
  CHECK(rank(a, b, objective).decided_by->metric == Metric::p99_duration);
  CHECK(rank(a, c, objective).outcome == Outcome::tie);
  CHECK_FALSE(rank(a, c, objective).decided_by);
  const std::vector<SettingSummary> all = {a, b, c};
  CHECK(undominated(all, {0, 1, 2}, objective) == std::vector<std::size_t>{0, 2});
}

TEST_CASE(
    "user settings: Flink and connector options, parallelism and cluster size; the rest is a "
    "condition") {
  for (const char* key :
       {"execution.checkpointing.timeout", "flink.execution.checkpointing.unaligned.enabled",
        "taskmanager.network.memory.buffer-debloat.enabled",
        "job.vertices[Sink: Doris].options.sink.check-interval", "job.vertices[Sink].parallelism",
        "cluster.taskmanagers", "scenario"})
    CHECK(is_user_setting(key));
  for (const char* key :
       {"systems.doris.max_running_txn_num_per_db", "systems.cdc_database.read-rate", "duration", "seed",
        "job.vertices[Sink].cost", "job.vertices[Source].rate",
        "job.vertices[Agg].key-distribution", "job.vertices[Sink].input", "timeline[0].factor",
        "cluster.checkpoint-storage.latency",
        "jobmanager.coordinators[Source Enumerator].hangs-at"})
    CHECK_FALSE(is_user_setting(key));
}

TEST_CASE("sweep: tied settings are marked '=' and reported as a tie, not a best") {
  const std::vector<std::string> keys = {"execution.checkpointing.unaligned.enabled"};
  std::vector<Point> points;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    // The same failovers; p99 durations 0.03 % apart.
    points.push_back(point(keys, {"false"}, 0, seed, 0, 3000.0 + static_cast<double>(seed)));
    points.push_back(point(keys, {"true"}, 1, seed, 0, 2999.0 + static_cast<double>(seed)));
  }
  std::string error;
  const Comparison c = compare(points, *parse_objective("failovers,p99_duration", error), {});
  CHECK_FALSE(c.best);
  CHECK(c.settings[0].tied);
  CHECK(c.settings[1].tied);
  const std::string table = format_comparison_table(c);
  CHECK(table.find("=  false") != std::string::npos);
  CHECK(table.find("tied for the best (=): execution.checkpointing.unaligned.enabled=false; "
                   "execution.checkpointing.unaligned.enabled=true") != std::string::npos);
  CHECK(table.find("best (*)") == std::string::npos);
  CHECK(comparison_csv(c).find(",true,false,true\n") != std::string::npos);  // feasible, best, tied
}

TEST_CASE(
    "sweep: a varied condition is never part of the best setting; each condition has its own") {
  const std::vector<std::string> keys = {"execution.checkpointing.timeout", "systems.doris.ingest"};
  std::vector<Point> points;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    // Faster Doris (a condition) gives fewer failovers; the timeout decides within each.
    points.push_back(point(keys, {"10min", "20MB/s"}, 0, seed, 4, 100));
    points.push_back(point(keys, {"10min", "80MB/s"}, 1, seed, 1, 100));
    points.push_back(point(keys, {"30min", "20MB/s"}, 2, seed, 2, 100));
    points.push_back(point(keys, {"30min", "80MB/s"}, 3, seed, 0, 100));
  }
  std::string error;
  const Comparison c = compare(points, *parse_objective("failovers", error), {});
  CHECK(c.conditions == std::vector<bool>{false, true});
  CHECK_FALSE(c.best);  // one per condition
  CHECK(c.settings[2].best);
  CHECK(c.settings[3].best);
  CHECK_FALSE(c.settings[1].best);  // fewer failovers than setting 2, but under another condition
  const std::string table = format_comparison_table(c);
  CHECK(table.find("under systems.doris.ingest=20MB/s (conditions): best (*): "
                   "execution.checkpointing.timeout=30min") != std::string::npos);
  CHECK(table.find("under systems.doris.ingest=80MB/s (conditions): best (*): "
                   "execution.checkpointing.timeout=30min") != std::string::npos);
  CHECK(comparison_json(c).find("\"conditions\": [\n    \"systems.doris.ingest\"") !=
        std::string::npos);
}

TEST_CASE("sweep: varying only conditions chooses no best") {
  std::vector<Point> points;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    points.push_back(point({"systems.doris.ingest"}, {"20MB/s"}, 0, seed, 4, 100));
    points.push_back(point({"systems.doris.ingest"}, {"80MB/s"}, 1, seed, 0, 100));
  }
  std::string error;
  const Comparison c = compare(points, *parse_objective("failovers", error), {});
  CHECK_FALSE(c.settings[1].best);
  CHECK(format_comparison_table(c).find("every varied key is a condition") != std::string::npos);
}

}  // namespace ckptsim::analysis
