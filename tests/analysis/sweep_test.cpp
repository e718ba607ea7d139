// The pure parts of sweeps: statistics over seeds, objective and constraints, point files, and
// the comparison's grouping and choice of the best setting.
#include <catch2/catch.hpp>

#include <cmath>

#include "analysis/sweep.hpp"

namespace {

using namespace ckptsim::analysis;

Point point(std::size_t setting, std::uint64_t seed, double failovers, double replayed) {
  Point p;
  p.scenario = "s.yaml";
  p.keys = {"execution.checkpointing.timeout"};
  p.values = {setting == 0 ? "5min" : setting == 1 ? "10min" : "30min"};
  p.setting = setting;
  p.settings = 3;
  p.seed = seed;
  p.metrics.assign(kMetricCount, std::nullopt);
  p.metrics[static_cast<std::size_t>(Metric::failovers)] = failovers;
  p.metrics[static_cast<std::size_t>(Metric::replayed_records)] = replayed;
  p.metrics[static_cast<std::size_t>(Metric::p99_duration)] = 50.0 + static_cast<double>(seed);
  return p;
}

}  // namespace

TEST_CASE("the 95 % confidence interval uses Student's t over the seeds") {
  const Estimate e = estimate({1, 2, 3});
  CHECK(e.n == 3);
  CHECK(e.mean == Approx(2));
  CHECK(e.ci95 == Approx(4.303 / std::sqrt(3.0)));
  CHECK(estimate({7}).ci95 == 0);
  CHECK(estimate({}).n == 0);
  CHECK(student_t_975(1) == Approx(12.706));
  CHECK(student_t_975(30) == Approx(2.042));
  CHECK(student_t_975(60) == Approx(2.000).epsilon(1e-3));
  CHECK(student_t_975(1000) == Approx(1.962).epsilon(1e-3));
}

TEST_CASE("objectives and constraints are parsed with metric names and units") {
  std::string error;
  const auto objective = parse_objective("failovers, max:completed_checkpoints", error);
  REQUIRE(objective);
  REQUIRE(objective->size() == 2);
  CHECK((*objective)[0].metric == Metric::failovers);
  CHECK_FALSE((*objective)[0].maximize);
  CHECK((*objective)[1].maximize);
  CHECK_FALSE(parse_objective("failover", error));
  CHECK(error.find("unknown metric 'failover'") == 0);

  const auto replayed = parse_constraint("replayed_records<=1M", error);
  REQUIRE(replayed);
  CHECK(replayed->comparison == "<=");
  CHECK(replayed->value == 1e6);
  const auto duration = parse_constraint("p99_duration < 30 s", error);
  REQUIRE(duration);
  CHECK(duration->comparison == "<");
  CHECK(duration->value == 30'000);  // milliseconds
  CHECK_FALSE(parse_constraint("failovers", error));
  CHECK_FALSE(parse_constraint("p99_duration<=fast", error));
}

TEST_CASE("a point file reads back exactly what was written") {
  Point p = point(1, 7, 2, 1234);
  p.metrics[static_cast<std::size_t>(Metric::p50_duration)] = 0.1 + 0.2;  // not representable
  const std::string text = point_file_text(p);
  const std::optional<Point> back = parse_point_file(text);
  REQUIRE(back);
  CHECK(back->values == p.values);
  CHECK(back->seed == 7);
  CHECK(back->metrics == p.metrics);
  CHECK(point_file_text(*back) == text);
  CHECK_FALSE(parse_point_file("{\"something\": 1}"));
  CHECK_FALSE(parse_point_file("not json"));
}

TEST_CASE("the comparison groups by setting whatever the order and picks the best feasible one") {
  std::vector<Point> points = {point(2, 2, 0, 5e6), point(0, 1, 4, 10), point(1, 2, 1, 20),
                               point(2, 1, 0, 5e6), point(0, 2, 4, 10), point(1, 1, 1, 30)};
  std::string error;
  const Comparison c = compare(points, *parse_objective("failovers,p99_duration", error),
                               {*parse_constraint("replayed_records<=1M", error)});
  REQUIRE(c.settings.size() == 3);
  CHECK(c.settings[0].values == std::vector<std::string>{"5min"});
  CHECK(c.settings[0].metrics[static_cast<std::size_t>(Metric::failovers)].mean == 4);
  CHECK_FALSE(c.settings[2].feasible);  // fewest failovers, but replays too much
  REQUIRE(c.best);
  CHECK(*c.best == 1);
  std::reverse(points.begin(), points.end());
  CHECK(comparison_json(compare(points, c.objective, c.constraints)) == comparison_json(c));
  const std::string table = format_comparison_table(c);
  CHECK(table.find("*  10min") != std::string::npos);
  CHECK(table.find("x  30min") != std::string::npos);
  CHECK(comparison_csv(c).find("10min,2,0,") != std::string::npos);
  CHECK(comparison_markdown(c).find("| **10min** |") != std::string::npos);
}

TEST_CASE("the table names keys by their shortest unambiguous suffix, never a bare 'enabled'") {
  Comparison c;
  c.keys = {"execution.checkpointing.unaligned.enabled", "execution.checkpointing.timeout",
            "restart-strategy.fixed-delay.delay", "restart-strategy.failure-rate.delay"};
  const std::string table = format_comparison_table(c);
  const std::string header = table.substr(0, table.find('\n'));
  CHECK(header.find("unaligned.enabled") != std::string::npos);
  CHECK(header.find(" timeout") != std::string::npos);
  CHECK(header.find("checkpointing.timeout") == std::string::npos);
  CHECK(header.find("fixed-delay.delay") != std::string::npos);
  CHECK(header.find("failure-rate.delay") != std::string::npos);
  CHECK(header.find("restart-strategy") == std::string::npos);
}

TEST_CASE("p99 after the first completed checkpoint leaves out the full first one") {
  ckptsim::run::RunResult r;
  const auto ms = ckptsim::core::milliseconds;
  for (int i = 0; i < 5; ++i) {
    ckptsim::run::CheckpointRecord c;
    c.id = i + 1;
    c.status = ckptsim::run::CheckpointStatus::completed;
    c.trigger_time = ms(10'000) * i;
    c.end_time = c.latest_ack_time = c.trigger_time + (i == 0 ? ms(60'000) : ms(100 + 10 * i));
    r.checkpoints.push_back(c);
  }
  const auto m = point_metrics(r, ckptsim::model::Scenario{});
  CHECK(m[static_cast<std::size_t>(Metric::p99_duration)] == 60'000.0);
  CHECK(m[static_cast<std::size_t>(Metric::p99_duration_after_first)] == 140.0);
  CHECK(format_comparison_table(Comparison{}).find("p99 after 1st") != std::string::npos);
}
