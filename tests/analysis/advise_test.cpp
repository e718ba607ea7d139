// analysis/advise.hpp: for every scenario of the catalog and the seed, the settings advise tries
// are settings a user controls that load; the verdict's rules (a win only beyond noise, ties
// reported as ties, fewer failovers by hiding failures never recommended).
#include <catch2/catch.hpp>

#include <filesystem>

#include "analysis/advise.hpp"
#include "analysis/user_settings.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::analysis {
namespace {

SettingSummary summary(double failovers, double failed, double completed) {
  SettingSummary s;
  s.runs = 5;
  s.metrics.assign(kMetricCount, Estimate{});
  s.metrics[static_cast<std::size_t>(Metric::failovers)] = estimate({failovers, failovers});
  s.metrics[static_cast<std::size_t>(Metric::failed_checkpoints)] = estimate({failed, failed});
  s.metrics[static_cast<std::size_t>(Metric::completed_checkpoints)] =
      estimate({completed, completed});
  return s;
}

Comparison comparison(std::vector<SettingSummary> settings) {
  Comparison c;
  c.settings = std::move(settings);
  c.objective = {{Metric::failovers, false}, {Metric::failed_checkpoints, false}};
  return c;
}

}  // namespace

TEST_CASE(
    "advise: every setting tried for a catalog or seed scenario is a user setting that loads") {
  const std::filesystem::path root = CKPTSIM_SOURCE_DIR;
  int scenarios = 0, tried = 0;
  for (const char* folder : {"scenarios/catalog", "scenarios/seed"})
    for (const auto& entry : std::filesystem::directory_iterator(root / folder)) {
      const auto loaded = scenario::load_file(entry.path().string());
      REQUIRE(loaded.ok());
      const run::RunResult r = run::run(*loaded.scenario);
      for (const Candidate& c : candidates(find(r, *loaded.scenario), *loaded.scenario)) {
        INFO(entry.path().filename().string() << ": " << c.overrides.front());
        for (const std::string& o : c.overrides) CHECK(is_user_setting(o.substr(0, o.find('='))));
        CHECK(scenario::load_file(entry.path().string(), c.overrides).ok());
        CHECK_FALSE(c.why.empty());
        if (!c.tried) CHECK_FALSE(c.why_not.empty());
        ++tried;
      }
      ++scenarios;
    }
  CHECK(scenarios >= 30);
  CHECK(tried >= 40);
}

TEST_CASE("advise: a win beyond noise is recommended, a tie within noise is a tie") {
  // Baseline 3 failovers; A: 0 (a win); B: 3 (a tie); C: 5 (worse); D: 0, and as good as A.
  const Comparison c = comparison({summary(3, 3, 10), summary(0, 0, 12), summary(3, 3, 10),
                                   summary(5, 5, 10), summary(0, 0, 12)});
  const Verdict v = judge(c, 4);
  CHECK(v.recommended == std::vector<std::size_t>{0, 3});  // A and D tie for the best
  CHECK(v.ties == std::vector<std::size_t>{1});
  CHECK(v.worse == std::vector<std::size_t>{2});
  CHECK(v.better.empty());
}

TEST_CASE("advise: fewer failovers with fewer completed checkpoints and as many failed is hiding") {
  // Tolerating the failures: no failover, the same failed checkpoints, fewer completed.
  const Comparison c = comparison({summary(3, 3, 10), summary(0, 3, 4), summary(1, 1, 10)});
  const Verdict v = judge(c, 2);
  CHECK(v.hiding == std::vector<std::size_t>{0});
  CHECK(v.recommended == std::vector<std::size_t>{1});
}

TEST_CASE(
    "advise: unaligned checkpoints are tried with the reason they cannot help a blocked thread") {
  const auto loaded = scenario::load_file(std::string(CKPTSIM_SOURCE_DIR) +
                                          "/scenarios/seed/doris-cdc-table-swap.yaml");
  REQUIRE(loaded.ok());
  const Findings f = find(run::run(*loaded.scenario), *loaded.scenario);
  CHECK(f.task_blocked);
  CHECK(f.thread_never_returns);
  CHECK(f.cdc_snapshot);
  CHECK(f.expired >= 1);
  bool unaligned = false;
  for (const Candidate& c : candidates(f, *loaded.scenario))
    if (c.overrides.front() == "execution.checkpointing.unaligned=true") {
      unaligned = true;
      CHECK(c.why_not.find("blocked in user code") != std::string::npos);
    }
  CHECK(unaligned);
}

}  // namespace ckptsim::analysis
