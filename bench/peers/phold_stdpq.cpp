// Reference point for B1, not an engine: the same PHOLD on a bare std::priority_queue of
// (integer ns time, LP) pairs (16 bytes, binary heap, ties in arbitrary order, no cancellation,
// no handler dispatch), with the increments, random numbers and LP state of phold_ckptsim.cpp.
// It shows, in the same run, what a plain heap costs on this machine, so the kernel's own
// overhead can be told apart from the machine's memory latency (issue 6 quotes 79/112/194/420
// ns/event for std::priority_queue on a quiet machine).
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "phold_common.hpp"

int main(int argc, char** argv) {
  const phold::Args a = phold::parse(argc, argv, "");
  constexpr double kMeanNs = 1000.5;
  phold::Rng rng(42);
  std::vector<phold::LpState> state(a.lps);
  using Event = std::pair<std::int64_t, std::uint32_t>;
  std::vector<Event> storage;
  storage.reserve(static_cast<std::size_t>(a.lps) * a.per_lp + 16);
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue(std::greater<>{},
                                                                      std::move(storage));
  const auto delay = [&] { return 1 + static_cast<std::int64_t>(1000.0 * rng.exp1()); };
  for (std::uint32_t lp = 0; lp < a.lps; ++lp)
    for (std::uint32_t k = 0; k < a.per_lp; ++k) queue.emplace(delay(), lp);
  const auto end = static_cast<std::int64_t>(phold::end_time(a) * kMeanNs);
  const phold::Timer timer;
  std::uint64_t ran = 0;
  while (!queue.empty() && queue.top().first <= end) {
    const auto [now, lp] = queue.top();
    queue.pop();
    ++ran;
    phold::LpState& s = state[lp];
    ++s.events;
    s.time_sum += static_cast<double>(now);
    queue.emplace(now + delay(), rng.below(a.lps));
  }
  const phold::Elapsed elapsed = timer.elapsed();
  phold::report("ref-stdpq", a, ran, elapsed, phold::end_time(a) * a.lps * a.per_lp);
  return 0;
}
