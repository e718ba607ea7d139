// The Prometheus text exposition format 0.0.4 of a run's metrics, as Flink's PrometheusReporter
// (AbstractPrometheusReporter) registers them with io.prometheus simpleclient 0.8.1 and its
// TextFormat.write004 prints them. Reads only the RunResult, through metric_values().
#include <cmath>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "sim/run/writers/metrics.hpp"

namespace ckptsim::run {
namespace {

// The JobManager's host as its scope variable <host> shows it in a local setup.
constexpr const char* kJobManagerHost = "localhost";

// AbstractPrometheusReporter.replaceInvalidChars: every character outside [a-zA-Z0-9:_]
// becomes '_' (metric names, and label values with filterLabelValueCharacters, the default).
std::string filter(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == ':' || ch == '_';
    if (!ok) ch = '_';
  }
  return out;
}

// TextFormat.writeEscapedLabelValue.
std::string escape_label_value(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\')
      out += "\\\\";
    else if (ch == '"')
      out += "\\\"";
    else if (ch == '\n')
      out += "\\n";
    else
      out += ch;
  }
  return out;
}

// TextFormat.writeEscapedHelp.
std::string escape_help(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\')
      out += "\\\\";
    else if (ch == '\n')
      out += "\\n";
    else
      out += ch;
  }
  return out;
}

// AbstractPrometheusReporter.gaugeFrom: numbers as doubles, anything else (a String gauge) 0.
// Counters and meters (count, rate) are doubles too.
double sample_value(const MetricValue& m) {
  if (const auto* i = std::get_if<std::int64_t>(&m.value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&m.value)) return *d;
  return 0.0;
}

// Collector.doubleToGoString.
std::string go_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return java_double_string(v);
}

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
  std::string help;
  std::vector<std::pair<Labels, double>> samples;
};

// Families in the order their first metric was seen, so the text is the same for the same run.
struct Exposition {
  std::vector<std::string> order;
  std::map<std::string, Family> families;

  // name = "flink_" + logical scope + "_" + metric name; user groups ("Shuffle.Netty...")
  // extend the logical scope.
  void add(const std::string& scope, const MetricValue& m, const Labels& labels) {
    std::string group_scope = scope;
    std::string name = m.name;
    if (const std::size_t dot = name.rfind('.'); dot != std::string::npos) {
      std::string groups = name.substr(0, dot);
      for (char& ch : groups) {
        if (ch == '.') ch = '_';
      }
      group_scope += "_" + filter(groups);
      name = name.substr(dot + 1);
    }
    const std::string family = "flink_" + group_scope + "_" + filter(name);
    auto [it, inserted] = families.try_emplace(family);
    if (inserted) {
      order.push_back(family);
      it->second.help = name + " (scope: " + group_scope + ")";
    }
    it->second.samples.emplace_back(labels, sample_value(m));
  }

  std::string text() const {
    std::string out;
    for (const std::string& name : order) {
      const Family& f = families.at(name);
      out += "# HELP " + name + " " + escape_help(f.help) + "\n";
      out += "# TYPE " + name + " gauge\n";
      for (const auto& [labels, value] : f.samples) {
        // simpleclient 0.8.1 closes every label set with a trailing comma.
        out += name + "{";
        for (const auto& [key, v] : labels) out += key + "=\"" + escape_label_value(v) + "\",";
        out += "} " + go_double(value) + "\n";
      }
    }
    return out;
  }
};

}  // namespace

std::string prometheus_text(const RunResult& r) {
  return prometheus_text(r, metric_values(r));
}

std::string prometheus_text(const RunResult& r, const MetricSnapshot& snapshot) {
  Exposition e;
  // Scope variables become labels without their <>; Flink's order is a HashMap's, so any fixed
  // order will do for a scraper.
  const Labels jobmanager = {{"host", filter(kJobManagerHost)}};
  for (const MetricValue& m : snapshot.jobmanager) e.add("jobmanager", m, jobmanager);
  const Labels job = {
      {"job_id", r.job_id}, {"host", filter(kJobManagerHost)}, {"job_name", filter(r.job_name)}};
  for (const MetricValue& m : snapshot.job) e.add("jobmanager_job", m, job);
  for (const SubtaskMetrics& s : snapshot.subtasks) {
    const VertexInfo& v = r.vertices[static_cast<std::size_t>(s.vertex)];
    const Labels task = {{"task_attempt_id", filter(s.attempt_id)},
                         {"host", filter(s.host)},
                         {"task_name", filter(v.name)},
                         {"task_attempt_num", std::to_string(s.attempt)},
                         {"job_name", filter(r.job_name)},
                         {"tm_id", filter(s.tm_id)},
                         {"job_id", r.job_id},
                         {"task_id", v.id},
                         {"subtask_index", std::to_string(s.subtask)}};
    for (const MetricValue& m : s.metrics) e.add("taskmanager_job_task", m, task);
  }
  return e.text();
}

}  // namespace ckptsim::run
