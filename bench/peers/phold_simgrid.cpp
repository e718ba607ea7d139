// B1 PHOLD on SimGrid (Debian libsimgrid-dev 3.32) with its lightest event mechanism, kernel
// timers: simgrid::kernel::timer::Timer::set(date, callback) from <simgrid/kernel/Timer.hpp>
// (a boost fibonacci_heap of (date, Timer*); every set() allocates a Timer holding an
// xbt::Task). No actors. The engine's main loop fires the timers:
// s4u::Engine::run_until(T) on a one-host platform built with the C++ zone API (no XML file).
// Time is double seconds, increments Exp(mean 1 s); the callback reads Engine::get_clock().
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdint>
#include <vector>

#include "phold_common.hpp"

namespace {

phold::Rng g_rng(42);
std::vector<phold::LpState> g_state;

void fire(std::uint32_t lp) {
  phold::LpState& s = g_state[lp];
  const double now = simgrid::s4u::Engine::get_clock();
  ++s.events;
  s.time_sum += now;
  const std::uint32_t to = g_rng.below(static_cast<std::uint32_t>(g_state.size()));
  simgrid::kernel::timer::Timer::set(now + g_rng.exp1(), [to] { fire(to); });
}

}  // namespace

int main(int argc, char** argv) {
  const phold::Args a = phold::parse(argc, argv, "");
  int sg_argc = 2;
  char arg0[] = "phold_simgrid";
  char arg1[] = "--log=root.thres:critical";
  char* sg_argv[] = {arg0, arg1, nullptr};
  simgrid::s4u::Engine engine(&sg_argc, sg_argv);
  simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
  zone->create_host("host", 1e9)->seal();
  zone->seal();
  engine.seal_platform();

  g_state.resize(a.lps);
  for (std::uint32_t lp = 0; lp < a.lps; ++lp)
    for (std::uint32_t k = 0; k < a.per_lp; ++k)
      simgrid::kernel::timer::Timer::set(g_rng.exp1(), [lp] { fire(lp); });
  const double end = phold::end_time(a);
  const phold::Timer timer;
  engine.run_until(end);
  const phold::Elapsed elapsed = timer.elapsed();
  phold::report("simgrid-timers", a, phold::executed(g_state), elapsed, end * a.lps * a.per_lp);
  return 0;
}
