// Daly's oracle (reference/anchors.md section 2.1, issue 5 item 7): scenarios/oracles/daly.yaml
// swept over the checkpoint interval tau (Flink's min-pause there) for the three columns of the
// anchors' table; the measured overhead (analysis::run_overhead, the sweep metric `overhead`)
// must contain Daly's H(tau) = M e^(R/M) (e^((tau+delta)/M) - 1) / tau - 1 in its 95 %
// confidence interval over the seeds, and the best interval found (the vertex of a parabola in
// ln tau through the three lowest measured points) must be within 10 % of Daly's optimum.
#include <catch2/catch.hpp>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "analysis/sweep.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;

namespace {

const std::string kScenario = std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/oracles/daly.yaml";
constexpr double kTaus[] = {30, 60, 120, 300, 600, 1200, 1800, 3600};  // seconds

struct Column {
  double delta, restart, mtbf;  // seconds
  std::vector<std::string> overrides;
  std::size_t seeds;
};

double daly_overhead(double tau, double delta, double restart, double mtbf) {
  return mtbf * std::exp(restart / mtbf) * (std::exp((tau + delta) / mtbf) - 1) / tau - 1;
}

double daly_optimum(double delta, double mtbf) {
  if (delta >= 2 * mtbf) return mtbf;
  const double x = delta / (2 * mtbf);
  return std::sqrt(2 * delta * mtbf) * (1 + std::sqrt(x) / 3 + x / 9) - delta;
}

// The vertex of the parabola through three points (x = ln tau), as tau.
double parabola_vertex(const double x[3], const double y[3]) {
  const double d1 = (y[1] - y[0]) / (x[1] - x[0]);
  const double d2 = (y[2] - y[1]) / (x[2] - x[1]);
  const double a = (d2 - d1) / (x[2] - x[0]);
  const double b = d1 - a * (x[0] + x[1]);
  return std::exp(-b / (2 * a));
}

struct Measured {
  analysis::Estimate estimate;
  double predicted = 0;
};

std::vector<Measured> sweep(const Column& column) {
  const std::size_t n = std::size(kTaus);
  std::vector<scenario::LoadResult> loaded;
  for (double tau : kTaus) {
    std::vector<std::string> overrides = column.overrides;
    overrides.push_back(fmt::format("execution.checkpointing.min-pause={}s", tau));
    loaded.push_back(scenario::load_file(kScenario, overrides));
    REQUIRE(loaded.back().ok());
  }
  std::vector<double> values(n * column.seeds, 0);
  tbb::parallel_for(std::size_t{0}, values.size(), [&](std::size_t i) {
    const model::Scenario& s = *loaded[i / column.seeds].scenario;
    const auto overhead =
        analysis::run_overhead(run::run(s, 1 + i % column.seeds), s);
    values[i] = overhead.value_or(-1);
  });
  std::vector<Measured> out;
  for (std::size_t k = 0; k < n; ++k) {
    const std::vector<double> v(values.begin() + static_cast<std::ptrdiff_t>(k * column.seeds),
                                values.begin() + static_cast<std::ptrdiff_t>((k + 1) * column.seeds));
    out.push_back({analysis::estimate(v),
                   daly_overhead(kTaus[k], column.delta, column.restart, column.mtbf)});
  }
  return out;
}

void check_column(const Column& column) {
  const std::vector<Measured> measured = sweep(column);
  std::string table = fmt::format("delta={} s R={} s M={} s, {} seeds\n", column.delta,
                                  column.restart, column.mtbf, column.seeds);
  for (std::size_t k = 0; k < measured.size(); ++k)
    table += fmt::format("  tau={:>5} s  measured {:.4f} % +- {:.4f} %  Daly {:.4f} %\n", kTaus[k],
                         100 * measured[k].estimate.mean, 100 * measured[k].estimate.ci95,
                         100 * measured[k].predicted);
  // The best interval: the parabola in ln tau through the lowest measured point and its
  // neighbours (the lowest point's neighbours in the table).
  std::size_t best = 0;
  for (std::size_t k = 1; k < measured.size(); ++k)
    if (measured[k].estimate.mean < measured[best].estimate.mean) best = k;
  const std::size_t mid = std::clamp<std::size_t>(best, 1, measured.size() - 2);
  double x[3], y[3];
  for (int j = 0; j < 3; ++j) {
    x[j] = std::log(kTaus[mid - 1 + static_cast<std::size_t>(j)]);
    y[j] = measured[mid - 1 + static_cast<std::size_t>(j)].estimate.mean;
  }
  const double found = parabola_vertex(x, y);
  const double optimum = daly_optimum(column.delta, column.mtbf);
  table += fmt::format("  best interval found {:.1f} s, Daly's optimum {:.1f} s\n", found, optimum);
  INFO(table);
  for (std::size_t k = 0; k < measured.size(); ++k) {
    INFO("tau = " << kTaus[k] << " s");
    CHECK(std::fabs(measured[k].estimate.mean - measured[k].predicted) <=
          measured[k].estimate.ci95);
  }
  CHECK(std::fabs(found / optimum - 1) <= 0.10);
  WARN(table);
}

}  // namespace

TEST_CASE("oracle: Daly's H(tau), delta = 10 s, R = 60 s, M = 24 h", "[oracle][daly]") {
  check_column({10, 60, 86400, {"cluster.mtbf=24h", "duration=5d"}, 4});
}

TEST_CASE("oracle: Daly's H(tau), delta = 10 s, R = 60 s, M = 1 h", "[oracle][daly]") {
  check_column({10, 60, 3600, {"duration=5d"}, 4});
}

TEST_CASE("oracle: Daly's H(tau), delta = 1 s, R = 30 s, M = 24 h", "[oracle][daly]") {
  check_column({1, 30, 86400,
                {"cluster.mtbf=24h", "job.vertices[Source].sync-snapshot=1s",
                 "restart-strategy.fixed-delay.delay=30s", "duration=5d"},
                4});
}

