// Point metrics and files, statistics over seeds, objective and constraints, and the four views
// of a comparison (terminal table, CSV, JSON, Markdown). Every output is a function of the point
// set alone, so a resumed or merged sweep writes the same bytes as one uninterrupted run.
#include "analysis/sweep.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "analysis/expect.hpp"
#include "analysis/significance.hpp"
#include "analysis/user_settings.hpp"
#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim::analysis {
namespace {

using nlohmann::ordered_json;

struct MetricInfo {
  Metric metric;
  const char* name;
  const char* title;
};
constexpr MetricInfo kMetrics[kMetricCount] = {
    {Metric::completed_checkpoints, "completed_checkpoints", "completed"},
    {Metric::failed_checkpoints, "failed_checkpoints", "failed"},
    {Metric::expired_checkpoints, "expired_checkpoints", "expired"},
    {Metric::failovers, "failovers", "failovers"},
    {Metric::restarts, "restarts", "restarts"},
    {Metric::p50_duration, "p50_duration", "p50 duration"},
    {Metric::p99_duration, "p99_duration", "p99 duration"},
    {Metric::replayed_records, "replayed_records", "replayed"},
    {Metric::overhead, "overhead", "overhead"},
    {Metric::back_pressured, "back_pressured", "back-pressured"},
    {Metric::latency_p50, "latency_p50", "latency p50"},
    {Metric::latency_p99, "latency_p99", "latency p99"},
    {Metric::p99_duration_after_first, "p99_duration_after_first", "p99 after 1st"},
    {Metric::lost_records, "lost_records", "lost"},
};

std::size_t index_of(Metric m) {
  return static_cast<std::size_t>(m);
}

// The last `parts` dot-separated parts of `key` (all of them when it has fewer).
std::string suffix(const std::string& key, int parts) {
  std::size_t at = key.size();
  for (int i = 0; i < parts; ++i) {
    const std::size_t dot = at == 0 ? std::string::npos : key.rfind('.', at - 1);
    if (dot == std::string::npos) return key;
    at = dot;
  }
  return key.substr(at + 1);
}

// The shortest suffix of `key` that no other key ends with, and never a bare word that names no
// setting: execution.checkpointing.unaligned.enabled is "unaligned.enabled", not "enabled".
std::string short_key(const std::string& key, const std::vector<std::string>& keys) {
  static const std::vector<std::string> kVague = {"enabled", "type", "mode",  "size",
                                                  "value",   "kind", "forced"};
  for (int parts = 1;; ++parts) {
    const std::string tail = suffix(key, parts);
    if (tail == key) return key;
    if (parts == 1 && std::find(kVague.begin(), kVague.end(), tail) != kVague.end()) continue;
    const bool unique = std::none_of(keys.begin(), keys.end(), [&](const std::string& other) {
      return other != key && (other == tail || other.ends_with("." + tail));
    });
    if (unique) return tail;
  }
}

// "53.2 ms", "12.3 s", "10.0 min": durations given in milliseconds.
std::string format_ms(double ms) {
  if (ms < 1000) return fmt::format("{:.1f} ms", ms);
  if (ms < 60'000) return fmt::format("{:.1f} s", ms / 1000);
  return fmt::format("{:.1f} min", ms / 60'000);
}

// "3", "2.50", "657.5k", "1.20M".
std::string format_number(double v) {
  if (std::fabs(v) >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (std::fabs(v) >= 1e4) return fmt::format("{:.1f}k", v / 1e3);
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{}", std::llround(v));
  return fmt::format("{:.2f}", v);
}

// "9.73 %", "0.518 %", "33.5 %": a fraction with three significant digits.
std::string format_percent(double fraction) {
  const double pct = fraction * 100;
  if (std::fabs(pct) >= 10) return fmt::format("{:.1f} %", pct);
  if (std::fabs(pct) >= 1) return fmt::format("{:.2f} %", pct);
  return fmt::format("{:.3f} %", pct);
}

std::string format_value(Metric m, double v) {
  if (is_duration(m)) return format_ms(v);
  if (is_fraction(m)) return format_percent(v);
  if (m == Metric::back_pressured) return fmt::format("{:.1f} ms/s", v);
  return format_number(v);
}

}  // namespace

std::string format_estimate(Metric m, const Estimate& e) {
  if (e.n == 0) return "-";
  if (e.n == 1 || e.ci95 == 0) return format_value(m, e.mean);
  return format_value(m, e.mean) + " ± " + format_value(m, e.ci95);
}

namespace {

// Exact in text: integral values as integers, others with 17 significant digits.
ordered_json number_json(double v) {
  if (std::fabs(v) < 9e15 && std::floor(v) == v) return static_cast<std::int64_t>(v);
  return v;
}

bool satisfies(const Constraint& c, double v) {
  if (c.comparison == "<=") return v <= c.value;
  if (c.comparison == "<") return v < c.value;
  if (c.comparison == ">=") return v >= c.value;
  if (c.comparison == ">") return v > c.value;
  return v == c.value;
}

}  // namespace

std::string objective_text(const std::vector<ObjectiveTerm>& objective) {
  std::vector<std::string> parts;
  for (const ObjectiveTerm& t : objective)
    parts.push_back(std::string(t.maximize ? "highest " : "lowest ") + metric_title(t.metric));
  return fmt::format("{}", fmt::join(parts, ", then "));
}

namespace {

std::string constraints_text(const std::vector<Constraint>& constraints) {
  std::vector<std::string> parts;
  for (const Constraint& c : constraints) parts.push_back(c.text);
  return fmt::format("{}", fmt::join(parts, ", "));
}

// KEY=VALUE of the varied keys that are settings (conditions == false) or conditions (true).
std::string setting_label(const Comparison& c, const SettingSummary& s, bool conditions = false) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < c.keys.size(); ++k)
    if ((k < c.conditions.size() && c.conditions[k]) == conditions)
      parts.push_back(c.keys[k] + "=" + s.values[k]);
  return fmt::format("{}", fmt::join(parts, " "));
}

bool any_condition(const Comparison& c) {
  return std::find(c.conditions.begin(), c.conditions.end(), true) != c.conditions.end();
}

// Marks the best (or tied) settings of each group of equal conditions.
void choose_best(Comparison& c) {
  if (std::find(c.conditions.begin(), c.conditions.end(), false) == c.conditions.end()) return;
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::string, std::size_t> group_of;
  for (std::size_t k = 0; k < c.settings.size(); ++k) {
    if (!c.settings[k].feasible) continue;
    const auto [it, added] = group_of.emplace(setting_label(c, c.settings[k], true), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(k);
  }
  for (const std::vector<std::size_t>& group : groups) {
    std::vector<std::size_t> top = undominated(c.settings, group, c.objective);
    if (top.empty()) top = group;  // beaten in a cycle: none stands out
    for (std::size_t k : top) (top.size() == 1 ? c.settings[k].best : c.settings[k].tied) = true;
  }
  if (!any_condition(c))
    for (std::size_t k = 0; k < c.settings.size(); ++k)
      if (c.settings[k].best) c.best = k;
}

std::string mark(const SettingSummary& s) {
  return s.best ? "*" : s.tied ? "=" : s.feasible ? "" : "x";
}

// The lines under the table that say which setting is best, per group of conditions.
std::string best_text(const Comparison& c) {
  const std::string why =
      objective_text(c.objective) +
      (c.constraints.empty() ? "" : ", subject to " + constraints_text(c.constraints));
  if (std::find(c.conditions.begin(), c.conditions.end(), false) == c.conditions.end())
    return "best: none chosen: every varied key is a condition of the incident, not a setting\n";
  std::string out;
  std::map<std::string, std::vector<std::string>> tied;
  std::vector<std::string> groups;
  for (const SettingSummary& s : c.settings) {
    const std::string group = setting_label(c, s, true);
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    if (s.best || s.tied) tied[group].push_back(setting_label(c, s));
  }
  for (const std::string& group : groups) {
    const std::string under = group.empty() ? "" : "under " + group + " (conditions): ";
    const auto it = tied.find(group);
    if (it == tied.end())
      out += under + "best: no setting meets the constraints\n";
    else if (it->second.size() == 1)
      out += fmt::format("{}best (*): {} ({})\n", under, it->second.front(), why);
    else
      out += fmt::format(
          "{}tied for the best (=): {} ({}: none is better than the others beyond "
          "noise)\n",
          under, fmt::join(it->second, "; "), why);
  }
  return out;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

}  // namespace

const char* metric_name(Metric m) {
  return kMetrics[index_of(m)].name;
}
const char* metric_title(Metric m) {
  return kMetrics[index_of(m)].title;
}
bool is_duration(Metric m) {
  return m == Metric::p50_duration || m == Metric::p99_duration ||
         m == Metric::p99_duration_after_first || m == Metric::latency_p50 ||
         m == Metric::latency_p99;
}
bool is_fraction(Metric m) {
  return m == Metric::overhead;
}

std::optional<Metric> metric_from_name(std::string_view name) {
  for (const MetricInfo& info : kMetrics)
    if (name == info.name) return info.metric;
  return std::nullopt;
}

std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (const MetricInfo& info : kMetrics) names.emplace_back(info.name);
  return names;
}

std::optional<double> run_overhead(const run::RunResult& r, const model::Scenario& scenario) {
  if (r.timeseries.empty() || r.end_time <= 0) return std::nullopt;
  // The tasks as run deploys them (a chain headed by a source reads for it), in result order.
  const model::JobSpec tasks =
      scenario.flink.operator_chaining ? model::chain_operators(scenario.job) : scenario.job;
  if (tasks.vertices.size() != r.vertices.size()) return std::nullopt;
  double ideal_rate = 0;
  for (const model::VertexSpec& v : tasks.vertices)
    if (!v.input) ideal_rate += v.records_per_second * v.parallelism;
  double read = 0;
  for (const run::TaskSampleRow& row : r.timeseries)
    if (!tasks.vertices[static_cast<std::size_t>(row.vertex)].input)
      read += static_cast<double>(row.sample.records_in);
  const double useful = read - static_cast<double>(r.replayed_records);
  const double ideal = ideal_rate * static_cast<double>(r.end_time) / 1e9;
  if (ideal <= 0 || useful <= 0) return std::nullopt;
  return ideal / useful - 1;
}

std::optional<double> max_back_pressured_ms_per_second(const run::RunResult& r) {
  if (r.timeseries.empty()) return std::nullopt;
  std::map<std::pair<int, int>, std::pair<double, double>> per_subtask;  // back-pressured, period
  for (const run::TaskSampleRow& row : r.timeseries) {
    auto& [bp, period] = per_subtask[{row.vertex, row.subtask}];
    bp += static_cast<double>(row.sample.back_pressured);
    period += static_cast<double>(row.sample.period);
  }
  double worst = 0;
  for (const auto& [subtask, sums] : per_subtask)
    if (sums.second > 0) worst = std::max(worst, sums.first / sums.second * 1000);
  return worst;
}

std::vector<std::optional<double>> point_metrics(const run::RunResult& r,
                                                 const model::Scenario& scenario) {
  std::vector<std::optional<double>> m(kMetricCount);
  double completed = 0, failed = 0, expired = 0;
  auto count = [&](const std::vector<run::CheckpointRecord>& checkpoints) {
    for (const run::CheckpointRecord& c : checkpoints) {
      completed += c.status == run::CheckpointStatus::completed;
      failed += c.status == run::CheckpointStatus::failed;
      expired += c.status == run::CheckpointStatus::failed &&
                 c.failure_reason == model::CheckpointFailureReason::checkpoint_expired;
    }
  };
  count(r.earlier_checkpoints);
  count(r.checkpoints);
  m[index_of(Metric::completed_checkpoints)] = completed;
  m[index_of(Metric::failed_checkpoints)] = failed;
  m[index_of(Metric::expired_checkpoints)] = expired;
  m[index_of(Metric::failovers)] = r.failovers;
  m[index_of(Metric::restarts)] = r.restarts;
  m[index_of(Metric::replayed_records)] = static_cast<double>(r.replayed_records);
  m[index_of(Metric::lost_records)] = static_cast<double>(r.lost_records);
  const std::vector<double> durations =
      completed_checkpoint_durations(r, std::numeric_limits<core::SimTime>::max());
  if (!durations.empty()) {
    const double ns_per_ms = static_cast<double>(core::kMillisecond);
    m[index_of(Metric::p50_duration)] = run::legacy_percentile(durations, 0.5) / ns_per_ms;
    m[index_of(Metric::p99_duration)] = run::legacy_percentile(durations, 0.99) / ns_per_ms;
  }
  if (durations.size() > 1) {  // in trigger order: the first completed one is durations[0]
    const std::vector<double> after_first(durations.begin() + 1, durations.end());
    m[index_of(Metric::p99_duration_after_first)] =
        run::legacy_percentile(after_first, 0.99) / static_cast<double>(core::kMillisecond);
  }
  m[index_of(Metric::overhead)] = run_overhead(r, scenario);
  m[index_of(Metric::back_pressured)] = max_back_pressured_ms_per_second(r);
  if (r.end_to_end_latency.records > 0) {
    m[index_of(Metric::latency_p50)] = r.end_to_end_latency.p50_ms;
    m[index_of(Metric::latency_p99)] = r.end_to_end_latency.p99_ms;
  }
  return m;
}

std::string point_file_text(const Point& p) {
  ordered_json j;
  j["ckptsim_point"] = 1;
  j["scenario"] = p.scenario;
  j["keys"] = p.keys;
  j["values"] = p.values;
  j["setting"] = p.setting;
  j["settings"] = p.settings;
  j["seed"] = p.seed;
  j["ok"] = p.ok;
  if (!p.ok) j["error"] = p.error;
  ordered_json metrics = ordered_json::object();
  for (const MetricInfo& info : kMetrics) {
    const auto& v = p.metrics.size() == kMetricCount ? p.metrics[index_of(info.metric)]
                                                     : std::optional<double>();
    metrics[info.name] = v ? number_json(*v) : ordered_json(nullptr);
  }
  j["metrics"] = metrics;
  return run::json_file_text(j);
}

std::optional<Point> parse_point_file(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("ckptsim_point", 0) != 1) return std::nullopt;
    Point p;
    p.scenario = j.at("scenario").get<std::string>();
    p.keys = j.at("keys").get<std::vector<std::string>>();
    p.values = j.at("values").get<std::vector<std::string>>();
    p.setting = j.at("setting").get<std::size_t>();
    p.settings = j.at("settings").get<std::size_t>();
    p.seed = j.at("seed").get<std::uint64_t>();
    p.ok = j.at("ok").get<bool>();
    if (!p.ok) p.error = j.at("error").get<std::string>();
    p.metrics.assign(kMetricCount, std::nullopt);
    const nlohmann::json& metrics = j.at("metrics");
    for (const MetricInfo& info : kMetrics) {
      const auto v = metrics.find(info.name);  // files of older versions lack newer metrics
      if (v != metrics.end() && !v->is_null()) p.metrics[index_of(info.metric)] = v->get<double>();
    }
    if (p.keys.size() != p.values.size() || p.setting >= p.settings) return std::nullopt;
    return p;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

double student_t_975(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df <= 30) return kTable[df - 1];
  // Cornish-Fisher expansion around the normal quantile; within 1e-3 of the exact value here.
  const double z = 1.959964;
  const double d = static_cast<double>(df);
  return z + (z * z * z + z) / (4 * d) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

Estimate estimate(const std::vector<double>& values) {
  Estimate e;
  e.n = values.size();
  if (e.n == 0) return e;
  double sum = 0;
  for (double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) return e;
  double squares = 0;
  for (double v : values) squares += (v - e.mean) * (v - e.mean);
  const double sd = std::sqrt(squares / static_cast<double>(e.n - 1));
  e.ci95 = student_t_975(e.n - 1) * sd / std::sqrt(static_cast<double>(e.n));
  return e;
}

std::optional<std::vector<ObjectiveTerm>> parse_objective(std::string_view text,
                                                          std::string& error) {
  std::vector<ObjectiveTerm> terms;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    ObjectiveTerm term;
    if (part.starts_with("min:")) {
      part.remove_prefix(4);
    } else if (part.starts_with("max:")) {
      term.maximize = true;
      part.remove_prefix(4);
    }
    const std::optional<Metric> metric = metric_from_name(part);
    if (!metric) {
      error = fmt::format("unknown metric '{}' in --objective; metrics are: {}", part,
                          fmt::join(metric_names(), ", "));
      return std::nullopt;
    }
    term.metric = *metric;
    terms.push_back(term);
    start = end + 1;
  }
  return terms;
}

std::optional<Constraint> parse_constraint(std::string_view text, std::string& error) {
  const std::size_t op = text.find_first_of("<>=");
  if (op == std::string_view::npos) {
    error = fmt::format("expected METRIC<=VALUE (or <, >=, >, =) in --constraint, got '{}'", text);
    return std::nullopt;
  }
  Constraint c;
  c.text = std::string(text);
  std::string_view name = text.substr(0, op);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  const std::optional<Metric> metric = metric_from_name(name);
  if (!metric) {
    error = fmt::format("unknown metric '{}' in --constraint; metrics are: {}", name,
                        fmt::join(metric_names(), ", "));
    return std::nullopt;
  }
  c.metric = *metric;
  std::size_t value_at = op + 1;
  if (value_at < text.size() && text[value_at] == '=') ++value_at;
  c.comparison = std::string(text.substr(op, value_at - op));
  if (c.comparison == "==") c.comparison = "=";
  if (c.comparison == "=<" || c.comparison == "=>") {
    error = fmt::format("write <= or >= in --constraint, got '{}'", text);
    return std::nullopt;
  }
  const std::string_view value = text.substr(value_at);
  if (is_fraction(c.metric) || c.metric == Metric::back_pressured) {
    // "5%" or "0.05" for a fraction; a plain number of ms per second for back-pressure.
    std::string number(value);
    number.erase(0, number.find_first_not_of(' '));
    const bool percent = !number.empty() && number.back() == '%';
    if (percent) number.pop_back();
    while (!number.empty() && number.back() == ' ') number.pop_back();
    char* end = nullptr;
    const double v = number.empty() ? 0 : std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() ||
        (percent && !is_fraction(c.metric))) {
      error = fmt::format("expected {} after {} in --constraint, got '{}'",
                          is_fraction(c.metric) ? "a fraction such as '5%' or '0.05'"
                                                : "ms per second such as '100'",
                          c.comparison, value);
      return std::nullopt;
    }
    c.value = percent ? v / 100 : v;
  } else if (is_duration(c.metric)) {
    const std::optional<core::Duration> d = scenario::parse_duration(value);
    if (!d) {
      error = fmt::format("expected a duration such as '30 s' after {} in --constraint, got '{}'",
                          c.comparison, value);
      return std::nullopt;
    }
    c.value = static_cast<double>(*d) / static_cast<double>(core::kMillisecond);
  } else {
    const std::optional<std::int64_t> n = scenario::parse_count(value);
    if (!n) {
      error = fmt::format("expected a count such as '1M' after {} in --constraint, got '{}'",
                          c.comparison, value);
      return std::nullopt;
    }
    c.value = static_cast<double>(*n);
  }
  return c;
}

Comparison compare(std::vector<Point> points, std::vector<ObjectiveTerm> objective,
                   std::vector<Constraint> constraints) {
  Comparison c;
  c.objective = std::move(objective);
  c.constraints = std::move(constraints);
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.setting != b.setting ? a.setting < b.setting : a.seed < b.seed;
  });
  if (!points.empty()) {
    c.scenario = points.front().scenario;
    c.keys = points.front().keys;
  }
  for (const std::string& key : c.keys) c.conditions.push_back(!is_user_setting(key));
  std::size_t i = 0;
  while (i < points.size()) {
    SettingSummary s;
    s.values = points[i].values;
    std::vector<std::vector<double>> values(kMetricCount);
    const std::size_t setting = points[i].setting;
    for (; i < points.size() && points[i].setting == setting; ++i) {
      const Point& p = points[i];
      if (!p.ok) {
        if (s.errors++ == 0) s.first_error = p.error.substr(0, p.error.find('\n'));
        continue;
      }
      ++s.runs;
      for (std::size_t m = 0; m < kMetricCount && m < p.metrics.size(); ++m)
        if (p.metrics[m]) values[m].push_back(*p.metrics[m]);
    }
    for (const std::vector<double>& v : values) s.metrics.push_back(estimate(v));
    for (const Constraint& k : c.constraints) {
      const Estimate& e = s.metrics[index_of(k.metric)];
      if (e.n == 0 || !satisfies(k, e.mean)) s.feasible = false;
    }
    if (s.runs == 0) s.feasible = false;
    c.settings.push_back(std::move(s));
  }
  if (!c.objective.empty()) choose_best(c);
  return c;
}

std::string format_comparison_table(const Comparison& c) {
  // The usual columns, then any other metric the objective or a constraint names.
  std::vector<Metric> shown = {
      Metric::completed_checkpoints, Metric::failed_checkpoints, Metric::failovers,
      Metric::p50_duration,          Metric::p99_duration,       Metric::p99_duration_after_first,
      Metric::replayed_records,      Metric::latency_p99};
  auto show = [&](Metric m) {
    if (std::find(shown.begin(), shown.end(), m) == shown.end()) shown.push_back(m);
  };
  for (const ObjectiveTerm& t : c.objective) show(t.metric);
  for (const Constraint& k : c.constraints) show(k.metric);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  // Flink keys are long: the table shows their shortest unambiguous suffix (the files keep the
  // whole key).
  for (const std::string& k : c.keys) header.push_back(short_key(k, c.keys));
  header.push_back("seeds");
  for (Metric m : shown) header.push_back(metric_title(m));
  rows.push_back(header);
  for (std::size_t s = 0; s < c.settings.size(); ++s) {
    const SettingSummary& setting = c.settings[s];
    std::vector<std::string> row = {mark(setting)};
    for (const std::string& v : setting.values) row.push_back(v);
    row.push_back(setting.errors == 0 ? std::to_string(setting.runs)
                                      : fmt::format("{} ({} bad)", setting.runs, setting.errors));
    for (Metric m : shown) row.push_back(format_estimate(m, setting.metrics[index_of(m)]));
    rows.push_back(row);
  }
  // Column widths in characters ("±" is one character but two bytes).
  auto width = [](const std::string& text) {
    std::size_t w = 0;
    for (char ch : text) w += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    return w;
  };
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], width(row[k]));
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0) line += "  ";
      const std::string pad(widths[k] - width(row[k]), ' ');
      // Settings left-aligned, numbers right-aligned.
      line += k <= c.keys.size() ? row[k] + pad : pad + row[k];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += "values: mean ± 95 % confidence interval over the seeds\n";
  if (std::any_of(c.settings.begin(), c.settings.end(),
                  [](const SettingSummary& s) { return !s.feasible; }))
    out += "x: does not meet " +
           (c.constraints.empty() ? std::string("(no run)") : constraints_text(c.constraints)) +
           "\n";
  for (const SettingSummary& s : c.settings)
    if (s.errors > 0)
      out += fmt::format("{}: {} point(s) did not load: {}\n", setting_label(c, s), s.errors,
                         s.first_error);
  if (!c.objective.empty()) out += best_text(c);
  return out;
}

std::string comparison_csv(const Comparison& c) {
  std::vector<std::string> header;
  for (const std::string& k : c.keys) header.push_back(csv_field(k));
  header.insert(header.end(), {"runs", "errors"});
  for (const MetricInfo& info : kMetrics) {
    header.push_back(std::string(info.name) + "_mean");
    header.push_back(std::string(info.name) + "_ci95");
  }
  header.insert(header.end(), {"feasible", "best", "tied"});
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (std::size_t s = 0; s < c.settings.size(); ++s) {
    const SettingSummary& setting = c.settings[s];
    std::vector<std::string> row;
    for (const std::string& v : setting.values) row.push_back(csv_field(v));
    row.push_back(std::to_string(setting.runs));
    row.push_back(std::to_string(setting.errors));
    for (const Estimate& e : setting.metrics) {
      row.push_back(e.n == 0 ? "" : fmt::format("{:.6f}", e.mean));
      row.push_back(e.n == 0 ? "" : fmt::format("{:.6f}", e.ci95));
    }
    row.push_back(setting.feasible ? "true" : "false");
    row.push_back(setting.best ? "true" : "false");
    row.push_back(setting.tied ? "true" : "false");
    out += fmt::format("{}\n", fmt::join(row, ","));
  }
  return out;
}

std::string comparison_json(const Comparison& c) {
  ordered_json j;
  j["scenario"] = c.scenario;
  j["keys"] = c.keys;
  ordered_json conditions = ordered_json::array();
  for (std::size_t k = 0; k < c.keys.size(); ++k)
    if (c.conditions[k]) conditions.push_back(c.keys[k]);
  j["conditions"] = conditions;
  ordered_json objective = ordered_json::array();
  for (const ObjectiveTerm& t : c.objective)
    objective.push_back(std::string(t.maximize ? "max:" : "min:") + metric_name(t.metric));
  j["objective"] = objective;
  ordered_json constraints = ordered_json::array();
  for (const Constraint& k : c.constraints) constraints.push_back(k.text);
  j["constraints"] = constraints;
  ordered_json settings = ordered_json::array();
  for (std::size_t s = 0; s < c.settings.size(); ++s) {
    const SettingSummary& setting = c.settings[s];
    ordered_json entry;
    ordered_json values = ordered_json::object();
    for (std::size_t k = 0; k < c.keys.size(); ++k) values[c.keys[k]] = setting.values[k];
    entry["values"] = values;
    entry["runs"] = setting.runs;
    entry["errors"] = setting.errors;
    if (setting.errors > 0) entry["first_error"] = setting.first_error;
    ordered_json metrics = ordered_json::object();
    for (const MetricInfo& info : kMetrics) {
      const Estimate& e = setting.metrics[index_of(info.metric)];
      metrics[info.name] = e.n == 0 ? ordered_json(nullptr)
                                    : ordered_json{{"n", e.n}, {"mean", e.mean}, {"ci95", e.ci95}};
    }
    entry["metrics"] = metrics;
    entry["feasible"] = setting.feasible;
    entry["best"] = setting.best;
    entry["tied"] = setting.tied;
    settings.push_back(entry);
  }
  j["settings"] = settings;
  j["best"] = c.best ? ordered_json(*c.best) : ordered_json(nullptr);
  return run::json_file_text(j);
}

std::string comparison_markdown(const Comparison& c) {
  std::string out = fmt::format("# Sweep of {}\n\n", markdown_cell(c.scenario));
  std::vector<std::string> header;
  for (const std::string& k : c.keys) header.push_back("`" + markdown_cell(k) + "`");
  header.push_back("seeds");
  for (const MetricInfo& info : kMetrics) header.push_back(info.title);
  out += "| " + fmt::format("{}", fmt::join(header, " | ")) + " |\n|";
  for (std::size_t k = 0; k < header.size(); ++k) out += k < c.keys.size() ? "---|" : "---:|";
  out += "\n";
  for (std::size_t s = 0; s < c.settings.size(); ++s) {
    const SettingSummary& setting = c.settings[s];
    std::vector<std::string> row;
    for (const std::string& v : setting.values)
      row.push_back(setting.best || setting.tied ? "**" + markdown_cell(v) + "**"
                                                 : markdown_cell(v));
    row.push_back(std::to_string(setting.runs));
    for (const MetricInfo& info : kMetrics)
      row.push_back(format_estimate(info.metric, setting.metrics[index_of(info.metric)]));
    out += "| " + fmt::format("{}", fmt::join(row, " | ")) + " |\n";
  }
  out += "\nMean ± 95 % confidence interval over the seeds.";
  if (!c.objective.empty()) out += " Best or tied for the best in bold.\n\n" + best_text(c);
  return out + "\n";
}

}  // namespace ckptsim::analysis
