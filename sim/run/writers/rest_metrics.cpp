// REST bodies of the /metrics family, built as Flink's handlers build them from the
// MetricStore: AbstractMetricsHandler (JobMetricsHandler, JobVertexMetricsHandler,
// JobManagerMetricsHandler) and AbstractAggregatingMetricsHandler
// (AggregatingSubtasksMetricsHandler, DoubleAccumulator). Reads only the RunResult.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/run/writers/flink_stats.hpp"
#include "sim/run/writers/metrics.hpp"

namespace ckptsim::run {

using nlohmann::ordered_json;

namespace {

// A ComponentMetricStore: metric id -> the string MetricStore.addMetric stored, in the order
// the metrics were registered.
using Store = std::vector<std::pair<std::string, std::string>>;

Store store_of(const std::vector<MetricValue>& metrics, const std::string& prefix = {}) {
  Store out;
  for (const MetricValue& m : metrics) out.emplace_back(prefix + m.name, metric_value_string(m));
  return out;
}

const std::string* find(const Store& store, const std::string& id) {
  for (const auto& [name, value] : store) {
    if (name == id) return &value;
  }
  return nullptr;
}

std::vector<std::size_t> hash_order(const std::vector<std::string>& keys,
                                    std::optional<std::size_t> initial_capacity) {
  std::vector<std::int32_t> hashes;
  for (const std::string& k : keys) hashes.push_back(java_string_hash(k));
  return java_hashmap_order(hashes, initial_capacity);
}

// AbstractMetricsHandler.handleRequest. Without `get`: the store's key set, whose order is a
// ConcurrentHashMap's (approximated by java.util.HashMap's: the two differ only inside a bucket
// after a resize). With `get`: the requested ids as a HashSet iterates them, unknown ones left
// out, values as strings.
ordered_json metric_collection(const Store& store, const std::vector<std::string>& get) {
  ordered_json out = ordered_json::array();
  std::vector<std::string> requested;
  for (const std::string& id : get) {
    if (!id.empty() && std::find(requested.begin(), requested.end(), id) == requested.end())
      requested.push_back(id);
  }
  if (requested.empty()) {
    std::vector<std::string> ids;
    for (const auto& entry : store) ids.push_back(entry.first);
    for (std::size_t i : hash_order(ids, std::nullopt)) out.push_back({{"id", ids[i]}});
    return out;
  }
  // new HashSet<>(list): capacity max(n / .75f + 1, 16).
  const auto capacity = std::max<std::size_t>(
      static_cast<std::size_t>(static_cast<float>(requested.size()) / .75f) + 1, 16);
  for (std::size_t i : hash_order(requested, capacity)) {
    if (const std::string* value = find(store, requested[i]))
      out.push_back({{"id", requested[i]}, {"value", *value}});
  }
  return out;
}

// TaskMetricStore.metrics: every metric of every reporting subtask as "<index>.<name>".
Store vertex_store(const MetricSnapshot& snapshot, int vertex) {
  Store out;
  for (const SubtaskMetrics& s : snapshot.subtasks) {
    if (s.vertex != vertex) continue;
    Store one = store_of(s.metrics, std::to_string(s.subtask) + ".");
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

enum Aggregation { kMin, kMax, kAvg, kSum, kSkew, kAggregations };

// MetricsAggregationParameter: AggregationMode.valueOf(value.toUpperCase()); SKEW came with
// FLINK-34025 (Flink 1.20).
std::vector<bool> parse_aggregations(const RunResult& r, const std::vector<std::string>& agg) {
  static constexpr const char* kNames[] = {"MIN", "MAX", "AVG", "SUM", "SKEW"};
  const bool skew = r.flink_version >= model::FlinkVersion::v1_20;
  std::vector<bool> wanted(kAggregations, agg.empty());
  if (!skew) wanted[kSkew] = false;
  for (const std::string& raw : agg) {
    std::string upper = raw;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    bool known = false;
    for (int a = 0; a < kAggregations; ++a) {
      if (upper != kNames[a] || (a == kSkew && !skew)) continue;
      wanted[static_cast<std::size_t>(a)] = true;
      known = true;
    }
    if (!known)
      throw std::invalid_argument("Cannot resolve query parameter (agg) from value \"" + raw +
                                  "\".");
  }
  return wanted;
}

// AggregatingSubtasksMetricsHandler.getIntegerRangeFromString: "1", "0-3"; values that are not
// numbers are skipped (logged by Flink).
std::vector<int> subtask_indices(const std::vector<std::string>& ranges) {
  auto number = [](const std::string& s) -> std::optional<int> {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    const std::string t = s.substr(b, e - b);
    if (t.empty() || t.size() > 10) return std::nullopt;
    std::size_t i = (t[0] == '+' || t[0] == '-') ? 1 : 0;
    if (i == t.size()) return std::nullopt;
    for (std::size_t k = i; k < t.size(); ++k) {
      if (!std::isdigit(static_cast<unsigned char>(t[k]))) return std::nullopt;
    }
    const long long v = std::stoll(t);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      return std::nullopt;
    return static_cast<int>(v);
  };
  std::vector<int> out;
  for (const std::string& raw : ranges) {
    std::string range = raw;
    while (!range.empty() && std::isspace(static_cast<unsigned char>(range.front())))
      range.erase(0, 1);
    while (!range.empty() && std::isspace(static_cast<unsigned char>(range.back())))
      range.pop_back();
    const std::size_t dash = range.find('-');
    if (dash == std::string::npos) {
      if (auto v = number(range)) out.push_back(*v);
      continue;
    }
    const auto first = number(range.substr(0, dash));
    const auto last = number(range.substr(dash + 1));
    if (!first || !last) continue;
    for (long long i = *first; i <= *last; ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

// Double.valueOf of a stored string; nullopt where Java throws NumberFormatException.
std::optional<double> java_double_value(const std::string& s) {
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return HUGE_VAL;
  if (s == "-Infinity") return -HUGE_VAL;
  if (s.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const double v = std::stod(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

ordered_json rest_job_metrics(const RunResult& r, const std::vector<std::string>& get) {
  const MetricSnapshot snapshot = metric_values(r);
  if (snapshot.job.empty()) return ordered_json::array();  // no JobMetricStore
  return metric_collection(store_of(snapshot.job), get);
}

ordered_json rest_vertex_metrics(const RunResult& r, int vertex,
                                 const std::vector<std::string>& get) {
  const MetricSnapshot snapshot = metric_values(r);
  const Store store = vertex_store(snapshot, vertex);
  if (store.empty()) return ordered_json::array();  // no TaskMetricStore
  return metric_collection(store, get);
}

ordered_json rest_jobmanager_metrics(const RunResult& r, const std::vector<std::string>& get) {
  return metric_collection(store_of(metric_values(r).jobmanager), get);
}

ordered_json rest_subtasks_metrics(const RunResult& r, int vertex,
                                   const std::vector<std::string>& get,
                                   const std::vector<std::string>& agg,
                                   const std::vector<std::string>& subtasks) {
  const std::vector<bool> wanted = parse_aggregations(r, agg);
  const MetricSnapshot snapshot = metric_values(r);
  // getStores: all subtask stores of the vertex (by index), or those the ranges name, in the
  // ranges' order, repeats included.
  std::vector<Store> stores;
  auto store_for = [&](int index) -> const SubtaskMetrics* {
    for (const SubtaskMetrics& s : snapshot.subtasks) {
      if (s.vertex == vertex && s.subtask == index) return &s;
    }
    return nullptr;
  };
  if (subtasks.empty()) {
    for (const SubtaskMetrics& s : snapshot.subtasks) {
      if (s.vertex == vertex) stores.push_back(store_of(s.metrics));
    }
  } else {
    for (int index : subtask_indices(subtasks)) {
      if (const SubtaskMetrics* s = store_for(index)) stores.push_back(store_of(s->metrics));
    }
  }

  ordered_json out = ordered_json::array();
  std::vector<std::string> requested;
  for (const std::string& id : get) {
    if (!id.empty()) requested.push_back(id);
  }
  if (requested.empty()) {
    // getAvailableMetrics: a HashSet (newHashSetWithExpectedSize(32)) of every store's keys.
    std::vector<std::string> ids;
    for (const Store& store : stores) {
      for (const auto& entry : store) {
        if (std::find(ids.begin(), ids.end(), entry.first) == ids.end()) ids.push_back(entry.first);
      }
    }
    for (std::size_t i : hash_order(ids, std::size_t{43})) out.push_back({{"id", ids[i]}});
    return out;
  }
  for (const std::string& id : requested) {
    std::vector<double> values;
    bool numeric = true;
    for (const Store& store : stores) {
      const std::string* text = find(store, id);
      if (text == nullptr) continue;
      const auto v = java_double_value(*text);
      if (!v) {
        numeric = false;
        break;
      }
      values.push_back(*v);
    }
    if (!numeric) continue;  // not numeric: left out
    // A requested metric that no store has empties the whole answer.
    if (values.empty()) return ordered_json::array();
    // DoubleAccumulator: DoubleMinimum/Maximum (Math.min/max), DoubleAverage (sum / count),
    // DoubleSum, DoubleDataSkew (mean absolute deviation over the mean, in %, at most 100).
    double min = values[0], max = values[0], sum = 0;
    for (double v : values) {
      min = std::isnan(min) || std::isnan(v) ? std::nan("") : std::min(min, v);
      max = std::isnan(max) || std::isnan(v) ? std::nan("") : std::max(max, v);
      sum += v;
    }
    const double avg = sum / static_cast<double>(values.size());
    double skew = 0;
    if (avg != 0.0) {
      double deviation = 0;
      for (double v : values) deviation += std::fabs(avg - v);
      skew = std::min(deviation / static_cast<double>(values.size()) / avg * 100.0, 100.0);
    }
    ordered_json metric;
    metric["id"] = id;
    if (wanted[kMin]) metric["min"] = json_double(min);
    if (wanted[kMax]) metric["max"] = json_double(max);
    if (wanted[kAvg]) metric["avg"] = json_double(avg);
    if (wanted[kSum]) metric["sum"] = json_double(sum);
    if (wanted[kSkew]) metric["skew"] = json_double(skew);
    out.push_back(std::move(metric));
  }
  return out;
}

}  // namespace ckptsim::run
