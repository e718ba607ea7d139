// Sweeps and comparisons: what a sweep keeps of each run (a point), the point files, and the
// comparison over seeds per setting (mean and 95 % confidence interval), with an objective and
// constraints that pick the best setting. Reads only RunResults and point files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/result.hpp"

namespace ckptsim::analysis {

// The numbers a sweep compares, in the order of the comparison's columns.
enum class Metric {
  completed_checkpoints,
  failed_checkpoints,
  expired_checkpoints,
  failovers,
  restarts,
  p50_duration,  // of completed checkpoints' end-to-end durations, milliseconds
  p99_duration,
  replayed_records,
  // Wall time per unit of useful work, minus one (Daly's H = T_w / T_s - 1): what the sources
  // would have read at their rates over the run, divided by what they read net of replays,
  // minus one. Needs the time series (sample period > 0); fixed-rate sources that are never
  // back-pressured make it the fraction of time lost to stalls, rework and restarts.
  overhead,
  // Back-pressured time in ms per second: per subtask over the run, the largest subtask.
  back_pressured,
  // End-to-end latency of records, read at a source to processed at a sink, in milliseconds:
  // percentiles over all records of the run (nullopt when no record reached a sink).
  latency_p50,
  latency_p99,
  // p99 of the completed checkpoints after the first completed one: the first is usually full
  // (the whole state) and dominates the p99 of a short run, hiding the incident.
  p99_duration_after_first,
  // Records in Kafka transactions the broker aborted before the committer got to them (B9).
  lost_records,
};
inline constexpr std::size_t kMetricCount = 14;
const char* metric_name(Metric m);   // "p99_duration": CSV/JSON column, objective name
const char* metric_title(Metric m);  // "p99 duration": terminal and Markdown column
bool is_duration(Metric m);          // milliseconds
bool is_fraction(Metric m);          // shown as a percentage
std::optional<Metric> metric_from_name(std::string_view name);
std::vector<std::string> metric_names();

// One run of a sweep: a setting (values of the varied keys) and a seed.
struct Point {
  std::string scenario;             // the scenario file, as given on the command line
  std::vector<std::string> keys;    // the varied keys (`scenario` for ckptsim compare)
  std::vector<std::string> values;  // one per key
  std::size_t setting = 0;          // index of the setting in the sweep's grid
  std::size_t settings = 1;         // how many settings the grid has
  std::uint64_t seed = 0;
  bool ok = true;                              // false: the scenario did not load with these values
  std::string error;                           // its diagnostics
  std::vector<std::optional<double>> metrics;  // by Metric; nullopt: no value (no checkpoint)
};

// The metrics of one run of `scenario` (durations in milliseconds), indexed by Metric.
std::vector<std::optional<double>> point_metrics(const run::RunResult& result,
                                                 const model::Scenario& scenario);
// overhead (see Metric::overhead); nullopt without a time series or source records.
std::optional<double> run_overhead(const run::RunResult& result, const model::Scenario& scenario);
// The largest subtask's back-pressured ms per second over the run; nullopt without time series.
std::optional<double> max_back_pressured_ms_per_second(const run::RunResult& result);

// The point file: deterministic JSON, numbers exact enough to read back bit for bit.
std::string point_file_text(const Point& point);
// nullopt if the text is not a point file.
std::optional<Point> parse_point_file(const std::string& text);

// Mean and 95 % confidence interval (Student's t) over the seeds that gave a value.
struct Estimate {
  std::size_t n = 0;
  double mean = 0;
  double ci95 = 0;  // half-width; 0 with fewer than 2 values
};
Estimate estimate(const std::vector<double>& values);
// The two-sided 95 % quantile of Student's t with `df` degrees of freedom (df >= 1).
double student_t_975(std::size_t df);

// "fewest failovers, then lowest p99 duration": metrics compared in turn on their means.
struct ObjectiveTerm {
  Metric metric = Metric::failovers;
  bool maximize = false;
};
// "replayed_records <= 1M": the mean must satisfy it.
struct Constraint {
  Metric metric = Metric::replayed_records;
  std::string comparison;  // "<=", "<", ">=", ">", "="
  double value = 0;        // in the metric's unit (ms for durations)
  std::string text;        // as written
};
// "failovers,p99_duration" or "min:failovers,max:completed_checkpoints"; error text on failure.
std::optional<std::vector<ObjectiveTerm>> parse_objective(std::string_view text,
                                                          std::string& error);
// "replayed_records<=1M", "p99_duration < 30 s", "failovers=0".
std::optional<Constraint> parse_constraint(std::string_view text, std::string& error);

struct SettingSummary {
  std::vector<std::string> values;
  std::size_t runs = 0;    // points that ran
  std::size_t errors = 0;  // points that did not load
  std::string first_error;
  std::vector<Estimate> metrics;  // by Metric
  bool feasible = true;           // meets every constraint
  // Chosen by the objective (analysis/significance.hpp), among the feasible settings with the
  // same conditions: the one no other beats beyond noise, or one of several tied for that.
  bool best = false;
  bool tied = false;
};

struct Comparison {
  std::string scenario;
  std::vector<std::string> keys;
  std::vector<bool> conditions;          // per key: a condition of the incident, not a setting
  std::vector<SettingSummary> settings;  // in grid order
  std::vector<ObjectiveTerm> objective;
  std::vector<Constraint> constraints;
  // The one best setting, when the objective separates one from all others and no condition
  // was varied (with conditions, each group of equal conditions has its own, marked `best`).
  std::optional<std::size_t> best;  // index into settings
};

// Groups the points by setting (grid order), seeds in ascending order, whatever order they come
// in, so the comparison of merged shards is the comparison of the whole sweep. The best setting
// is chosen by analysis/significance.hpp's rule, separately for each combination of the varied
// conditions (analysis/user_settings.hpp); a sweep that varies only conditions has none.
Comparison compare(std::vector<Point> points, std::vector<ObjectiveTerm> objective,
                   std::vector<Constraint> constraints);

// "3.20 ± 0.30", "77.6 ms ± 1.2 ms", "-" without a value.
std::string format_estimate(Metric m, const Estimate& e);
// "lowest failovers, then lowest p99 duration".
std::string objective_text(const std::vector<ObjectiveTerm>& objective);

std::string format_comparison_table(const Comparison& comparison);  // for the terminal
std::string comparison_csv(const Comparison& comparison);
std::string comparison_json(const Comparison& comparison);
std::string comparison_markdown(const Comparison& comparison);

}  // namespace ckptsim::analysis
