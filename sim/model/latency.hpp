// End-to-end latency of records, source read to sink processing, weighted by records: a
// histogram with buckets 2^(1/16) apart (4.4 %) from 1 us, so percentiles are exact to half a
// bucket and the mean is exact. Flink measures the same path with LatencyMarkers
// (metrics.latency.interval); here every record counts, so no marker interval is needed.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "sim/core/time.hpp"

namespace ckptsim::model {

class LatencyHistogram {
 public:
  void add(core::Duration latency, std::int64_t records) {
    if (records <= 0) return;
    const double ns = static_cast<double>(std::max<core::Duration>(latency, 0));
    buckets_[bucket(ns)] += records;
    records_ += records;
    sum_ns_ += ns * static_cast<double>(records);
  }
  // Adds `factor` times what `later` holds beyond `earlier` (two states of one histogram),
  // rounded bucket by bucket.
  void add_difference(const LatencyHistogram& later, const LatencyHistogram& earlier,
                      double factor) {
    for (std::size_t b = 0; b < kBuckets; ++b) {
      const auto added = static_cast<std::int64_t>(
          std::llround(factor * static_cast<double>(later.buckets_[b] - earlier.buckets_[b])));
      buckets_[b] += added;
      records_ += added;
    }
    sum_ns_ += factor * (later.sum_ns_ - earlier.sum_ns_);
  }
  // What this holds beyond `earlier` (an earlier state of the same histogram).
  LatencyHistogram since(const LatencyHistogram& earlier) const {
    LatencyHistogram d;
    d.add_difference(*this, earlier, 1.0);
    return d;
  }
  std::int64_t records() const { return records_; }
  double mean_ms() const { return records_ > 0 ? sum_ns_ / static_cast<double>(records_) / 1e6 : 0; }
  // Nearest rank over records; the value is the bucket's geometric middle.
  double percentile_ms(double q) const {
    if (records_ <= 0) return 0;
    const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(records_)));
    std::int64_t seen = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      seen += buckets_[b];
      if (seen >= std::max<std::int64_t>(rank, 1))
        return b == 0 ? kFirst / 2 / 1e6 : kFirst * std::exp2((static_cast<double>(b) - 0.5) / kPerOctave) / 1e6;
    }
    return 0;
  }

 private:
  static constexpr double kFirst = 1e3;  // ns: bucket 0 holds latencies below 1 us
  static constexpr double kPerOctave = 16;
  static constexpr std::size_t kBuckets = 16 * 45;  // up to 2^45 us, about a year
  static std::size_t bucket(double ns) {
    if (ns < kFirst) return 0;
    const auto b = static_cast<std::size_t>(std::floor(std::log2(ns / kFirst) * kPerOctave)) + 1;
    return std::min(b, kBuckets - 1);
  }
  std::array<std::int64_t, kBuckets> buckets_{};
  std::int64_t records_ = 0;
  double sum_ns_ = 0;
};

}  // namespace ckptsim::model
