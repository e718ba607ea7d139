// Runs independent simulations in parallel (what `ckptsim test`, `sweep` and `compare` share):
// body(i) for every i in [0, n) on `threads` workers (0: one per core), each i exactly once; the
// caller reads what the bodies wrote once this returns.
//
// Release builds use a TBB arena. Under ThreadSanitizer (`make tsan`) the same bodies run on
// plain std::threads taking indices from an atomic counter: Debian's libtbb is not built with
// TSan, so TSan cannot see TBB's own synchronisation (its work stealing, the ranges it splits,
// the join) and reports TBB's internals and the caller's reads of the results as races. With
// std::thread and std::atomic every hand-off is visible to TSan, so what it reports is a race
// in ckptsim's code between two runs (tests/tsan/).
#pragma once

#include <algorithm>
#include <cstddef>

#if defined(__SANITIZE_THREAD__)
#include <atomic>
#include <thread>
#include <vector>
#else
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace ckptsim::cli {

template <typename Body>
void run_in_parallel(int threads, std::size_t n, Body&& body) {
#if defined(__SANITIZE_THREAD__)
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t workers =
      std::min<std::size_t>(n, threads > 0 ? static_cast<std::size_t>(threads) : cores);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) body(i);
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
#else
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute([&] { tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { body(i); }); });
#endif
}

}  // namespace ckptsim::cli
