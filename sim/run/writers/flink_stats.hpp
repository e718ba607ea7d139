// The small pieces of Flink's statistics and of Java's collections whose exact arithmetic shows up
// in REST JSON: StatsSummary (min/max/avg and a sliding-window histogram), commons-math3's
// default Percentile estimation, and the iteration order of java.util.HashMap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim::run {

// org.apache.commons.math3.stat.descriptive.rank.Percentile with its default estimation type,
// EstimationType.LEGACY: pos = p(n+1), p=0 -> first, p=1 -> last, linear interpolation between
// neighbours. `quantile` is in (0, 1] as in HistogramStatistics.getQuantile; the value goes through
// quantile*100 and /100 exactly as Flink -> Percentile do. Returns NaN for no values.
double legacy_percentile(std::vector<double> values, double quantile);

// CompletedCheckpointStatsSummary's histogram window (DescriptiveStatisticsHistogram size).
inline constexpr std::size_t kSummaryHistogramWindow = 10'000;

// org.apache.flink.runtime.checkpoint.StatsSummary: ignores negative values; min/max 0 while empty;
// avg is sum / count with integer division. With a histogram window the percentiles come from the
// last `window` values, else they are NaN (task-level summaries have no histogram).
class StatsSummary {
 public:
  explicit StatsSummary(std::size_t histogram_window = 0) : window_(histogram_window) {}

  void add(std::int64_t value);

  std::int64_t min() const { return min_; }
  std::int64_t max() const { return max_; }
  std::int64_t average() const { return count_ == 0 ? 0 : sum_ / count_; }
  std::int64_t count() const { return count_; }
  double quantile(double q) const;

 private:
  std::size_t window_;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
  std::int64_t sum_ = 0;
  std::int64_t count_ = 0;
  std::deque<double> recent_;  // the histogram window, oldest first
};

// A double for Jackson: NaN becomes the string "NaN" (QUOTE_NON_NUMERIC_NUMBERS).
nlohmann::ordered_json json_double(double value);

// StatsSummaryDto: min, max, avg, p50, p90, p95, p99, p999.
nlohmann::ordered_json stats_summary_dto(const StatsSummary& summary);
nlohmann::ordered_json stats_summary_dto(std::int64_t min, std::int64_t max, std::int64_t avg,
                                         const StatsSummary& quantiles_from);
// The all-zero dto Flink writes for deprecated alignment_buffered (percentiles 0.0, not NaN).
nlohmann::ordered_json zero_stats_summary_dto();

// java.lang.String.hashCode of an ASCII/Latin-1 string (UTF-16 code units for the rest).
std::int32_t java_string_hash(std::string_view s);
// org.apache.flink.util.AbstractID.hashCode of a 32-hex-char id; falls back to the string hash.
std::int32_t java_abstract_id_hash(std::string_view hex_id);

// The order in which a java.util.HashMap iterates keys with these hashCodes, inserted in the
// given order, for `new HashMap<>()` (no initial capacity) or `new HashMap<>(n)`. Returns indices
// into `hashes`. Tree bins (8+ keys in one bucket) are not modelled.
std::vector<std::size_t> java_hashmap_order(const std::vector<std::int32_t>& hashes,
                                            std::optional<std::size_t> initial_capacity);

}  // namespace ckptsim::run
