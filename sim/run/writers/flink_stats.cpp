// Flink's StatsSummary and commons-math3's Percentile, redone in integer and IEEE double arithmetic
// so that the REST numbers match the JobManager's to the last digit.
#include "sim/run/writers/flink_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ckptsim::run {

// Sources:
// - DescriptiveStatisticsHistogramStatistics.getQuantile(q) = percentile(q * 100), computed by
//   `new Percentile().withNaNStrategy(NaNStrategy.FIXED)` (apache/flink, flink-runtime
//   .../metrics/DescriptiveStatisticsHistogramStatistics.java, CommonMetricsSnapshot); older
//   releases call DescriptiveStatistics.getPercentile, which uses `new Percentile()` as well.
// - commons-math3 Percentile(): `this(quantile, EstimationType.LEGACY, NaNStrategy.REMOVED, ...)`,
//   so the estimation is LEGACY (not R_7): index = p == 0 ? 0 : p == 1 ? n : p * (n + 1);
//   estimate: pos < 1 -> x[0]; pos >= n -> x[n-1]; else x[k-1] + (pos - k) * (x[k] - x[k-1]) with
//   k = floor(pos). evaluate(p) passes p / 100 to index(); n == 1 returns the only value.
double legacy_percentile(std::vector<double> values, double quantile) {
  const double percent = quantile * 100.0;  // getQuantile -> getPercentile(quantile * 100)
  if (values.empty() || !(percent > 0.0 && percent <= 100.0)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n == 1) return values.front();
  const double p = percent / 100.0;
  const double length = static_cast<double>(n);
  const double pos = p == 0.0 ? 0.0 : (p == 1.0 ? length : p * (length + 1.0));
  if (pos < 1.0) return values.front();
  if (pos >= length) return values.back();
  const double fpos = std::floor(pos);
  const auto k = static_cast<std::size_t>(fpos);
  const double dif = pos - fpos;
  const double lower = values[k - 1];
  const double upper = values[k];
  return lower + dif * (upper - lower);
}

void StatsSummary::add(std::int64_t value) {
  if (value < 0) return;  // StatsSummary.add: "Adds the value to the stats if it is >= 0."
  if (count_ > 0) {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  } else {
    min_ = value;
    max_ = value;
  }
  ++count_;
  sum_ += value;
  if (window_ > 0) {
    if (recent_.size() == window_) recent_.pop_front();
    recent_.push_back(static_cast<double>(value));
  }
}

double StatsSummary::quantile(double q) const {
  if (window_ == 0) return std::numeric_limits<double>::quiet_NaN();  // no histogram
  return legacy_percentile(std::vector<double>(recent_.begin(), recent_.end()), q);
}

nlohmann::ordered_json json_double(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

nlohmann::ordered_json stats_summary_dto(std::int64_t min, std::int64_t max, std::int64_t avg,
                                         const StatsSummary& quantiles_from) {
  nlohmann::ordered_json dto;
  dto["min"] = min;
  dto["max"] = max;
  dto["avg"] = avg;
  dto["p50"] = json_double(quantiles_from.quantile(0.5));
  dto["p90"] = json_double(quantiles_from.quantile(0.9));
  dto["p95"] = json_double(quantiles_from.quantile(0.95));
  dto["p99"] = json_double(quantiles_from.quantile(0.99));
  dto["p999"] = json_double(quantiles_from.quantile(0.999));
  return dto;
}

nlohmann::ordered_json stats_summary_dto(const StatsSummary& summary) {
  return stats_summary_dto(summary.min(), summary.max(), summary.average(), summary);
}

nlohmann::ordered_json zero_stats_summary_dto() {
  nlohmann::ordered_json dto;
  dto["min"] = std::int64_t{0};
  dto["max"] = std::int64_t{0};
  dto["avg"] = std::int64_t{0};
  for (const char* key : {"p50", "p90", "p95", "p99", "p999"}) dto[key] = 0.0;
  return dto;
}

namespace {

void decode_utf8_units(std::string_view s, std::vector<std::uint16_t>& units) {
  // Decodes UTF-8 into UTF-16 code units as Java strings hold them; invalid bytes map to U+FFFD.
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::uint32_t cp = 0xFFFD;
    std::size_t len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if ((b0 >> 5) == 0x6 && i + 1 < s.size()) {
      cp = ((b0 & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
      len = 2;
    } else if ((b0 >> 4) == 0xE && i + 2 < s.size()) {
      cp = ((b0 & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
      len = 3;
    } else if ((b0 >> 3) == 0x1E && i + 3 < s.size()) {
      cp = ((b0 & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
      len = 4;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units.push_back(static_cast<std::uint16_t>(0xD800 + (cp >> 10)));
      units.push_back(static_cast<std::uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      units.push_back(static_cast<std::uint16_t>(cp));
    }
    i += len;
  }
}

}  // namespace

std::int32_t java_string_hash(std::string_view s) {
  std::vector<std::uint16_t> units;
  decode_utf8_units(s, units);
  std::uint32_t h = 0;
  for (std::uint16_t u : units) h = 31u * h + u;  // int overflow wraps in Java
  return static_cast<std::int32_t>(h);
}

std::int32_t java_abstract_id_hash(std::string_view hex_id) {
  if (hex_id.size() != 32) return java_string_hash(hex_id);
  // AbstractID.hashCode = (int) lower ^ (int) (lower >>> 32) ^ (int) upper ^ (int) (upper >>> 32):
  // the XOR of the four 32-bit words of the 16 bytes, whatever their order in the hex string.
  std::uint32_t h = 0;
  for (std::size_t word = 0; word < 4; ++word) {
    std::uint32_t w = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      const char c = hex_id[word * 8 + i];
      std::uint32_t digit = 0;
      if (c >= '0' && c <= '9') {
        digit = static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        return java_string_hash(hex_id);
      }
      w = (w << 4) | digit;
    }
    h ^= w;
  }
  return static_cast<std::int32_t>(h);
}

std::vector<std::size_t> java_hashmap_order(const std::vector<std::int32_t>& hashes,
                                            std::optional<std::size_t> initial_capacity) {
  // HashMap.resize() and putVal(): the table is created on the first put, then doubled whenever
  // ++size > threshold. Splitting keeps the relative order inside a bucket, so the final order is
  // (bucket in the final table, insertion order).
  std::size_t capacity = 0;
  std::size_t threshold = 0;
  if (initial_capacity) {
    std::size_t t = 1;  // tableSizeFor(initialCapacity)
    while (t < *initial_capacity) t <<= 1;
    threshold = t;
  }
  auto resize = [&] {
    std::size_t new_capacity = 0;
    std::size_t new_threshold = 0;
    if (capacity > 0) {
      new_capacity = capacity << 1;
      if (capacity >= 16) new_threshold = threshold << 1;
    } else if (threshold > 0) {
      new_capacity = threshold;
    } else {
      new_capacity = 16;
      new_threshold = 12;
    }
    if (new_threshold == 0) new_threshold = new_capacity * 3 / 4;  // (int) (cap * 0.75f)
    capacity = new_capacity;
    threshold = new_threshold;
  };
  for (std::size_t size = 1; size <= hashes.size(); ++size) {
    if (capacity == 0) resize();
    if (size > threshold) resize();
  }
  std::vector<std::size_t> order(hashes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (capacity == 0) return order;
  auto bucket = [&](std::size_t i) {
    const auto h = static_cast<std::uint32_t>(hashes[i]);
    return static_cast<std::size_t>(h ^ (h >> 16)) & (capacity - 1);  // HashMap.hash()
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return bucket(a) < bucket(b); });
  return order;
}

}  // namespace ckptsim::run
