// Random streams: one xoshiro256** engine per component, seeded from (run seed, stable component
// id) by SplitMix64, with our own distributions so results do not depend on the standard library.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace ckptsim::core {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// FNV-1a: a stable 64-bit id for a component name (same on every platform and run).
constexpr std::uint64_t stable_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

class RandomStream {
 public:
  RandomStream(std::uint64_t run_seed, std::uint64_t stream_id) {
    std::uint64_t sm = run_seed ^ (stream_id * 0x9e3779b97f4a7c15ULL);
    for (auto& w : s_) w = splitmix64(sm);
  }
  RandomStream(std::uint64_t run_seed, std::string_view stream_name)
      : RandomStream(run_seed, stable_hash(stream_name)) {}

  std::uint64_t next_u64() {
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
  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  // Uniform integer in [lo, hi] (inclusive), unbiased (Lemire's method with rejection).
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    __extension__ typedef unsigned __int128 u128;
    const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
    if (range == 0) return static_cast<std::int64_t>(next_u64());  // full 64-bit range
    const std::uint64_t limit = (0 - range) % range;
    for (;;) {
      const u128 m = static_cast<u128>(next_u64()) * range;
      if (static_cast<std::uint64_t>(m) >= limit)
        return lo + static_cast<std::int64_t>(static_cast<std::uint64_t>(m >> 64));
    }
  }
  // Exponential with the given mean, by inversion.
  double exponential(double mean) { return -mean * std::log1p(-uniform01()); }
  // Standard normal by Box-Muller (one value per call, the second discarded for simplicity).
  double normal(double mean, double stddev) {
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace ckptsim::core
