// Shared by the C++ PHOLD programs of bench/peers (B1 of reference/anchors.md section 1.3):
// argument parsing, the random stream the peers use, the 64-byte LP state, timing, peak RSS and
// the one-line result every program prints. Header-only; never linked into ckptsim.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace phold {

// 64 bytes of state per logical process, one cache line; every executed event increments
// `events` and adds its time stamp (so the line is read and written, and the event count can be
// checked against the oracle N*M*T/mean).
struct alignas(64) LpState {
  std::uint64_t events = 0;
  double time_sum = 0;
  std::uint64_t pad[6] = {};
};
static_assert(sizeof(LpState) == 64);

// xoshiro256** seeded by SplitMix64 (Blackman and Vigna's published algorithms), the same
// generator family ckptsim's RandomStream uses, so every C++ engine pays the same for its
// random numbers.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& w : s_) {
      std::uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Exponential with mean 1, by inversion.
  double exp1() { return -std::log1p(-uniform01()); }
  // Uniform in [0, n) by multiply-shift (bias below 2^-32 for n <= 2^32).
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

struct Args {
  std::uint32_t lps = 1024;        // N
  std::uint32_t per_lp = 1;        // M
  std::uint64_t events = 4000000;  // target executed events; end time T = events * mean / (N*M)
  std::string variant;             // engine-specific (ns-3 scheduler)
};

inline Args parse(int argc, char** argv, const char* usage) {
  Args a;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s N M EVENTS %s\n", argv[0], usage);
    std::exit(2);
  }
  a.lps = static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 10));
  a.per_lp = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
  a.events = std::strtoull(argv[3], nullptr, 10);
  if (argc > 4) a.variant = argv[4];
  return a;
}

// End time in units of the mean increment.
inline double end_time(const Args& a) {
  return static_cast<double>(a.events) / (static_cast<double>(a.lps) * a.per_lp);
}

inline long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // KiB on Linux
}

inline std::uint64_t executed(const std::vector<LpState>& lps) {
  std::uint64_t n = 0;
  for (const LpState& s : lps) n += s.events;
  return n;
}

// Wall and CPU time of the measured phase (the run loop; building the LPs and scheduling the
// initial events is not timed). CPU time is what the table reports: on a shared 2-core machine
// the wall clock also counts the time other processes hold the core.
struct Elapsed {
  double wall_s;
  double cpu_s;
};
class Timer {
 public:
  Timer() : wall0_(std::chrono::steady_clock::now()), cpu0_(cpu_now()) {}
  Elapsed elapsed() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count(),
            cpu_now() - cpu0_};
  }

 private:
  static double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  std::chrono::steady_clock::time_point wall0_;
  double cpu0_;
};

// One line per run; run.sh collects these. `expected` is the oracle N*M*T/mean; ns_per_event
// and events_per_s are per CPU second of the run loop.
inline void report(const char* engine, const Args& a, std::uint64_t events, Elapsed t,
                   double expected) {
  const double wall = t.wall_s;
  const double cpu = t.cpu_s;
  const double n = static_cast<double>(events);
  std::printf(
      "RESULT engine=%s N=%u M=%u events=%llu expected=%.0f cpu_s=%.6f wall_s=%.6f "
      "ns_per_event=%.1f events_per_s=%.0f wall_ns_per_event=%.1f rss_kib=%ld\n",
      engine, a.lps, a.per_lp, static_cast<unsigned long long>(events), expected, cpu, wall,
      cpu * 1e9 / n, n / cpu, wall * 1e9 / n, peak_rss_kib());
  std::fflush(stdout);
}

}  // namespace phold
