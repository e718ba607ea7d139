// B1 PHOLD on ns-3 (Debian libns3-dev 3.37): every event is a Simulator::Schedule of a free
// function with the destination LP as its argument; ns::Time at its default 1 ns resolution,
// increments Seconds(Exp(1)) (mean 1 s), run until Simulator::Stop(Seconds(T)).
// The scheduler is the 4th argument: map (ns-3's default, ns3::MapScheduler), heap
// (ns3::HeapScheduler), pq (ns3::PriorityQueueScheduler), calendar (ns3::CalendarScheduler),
// selected through Simulator::SetScheduler(ObjectFactory) before the first event. Compiled as
// C++17: the 3.37 headers do not compile as C++20 (Singleton<T>() constructor syntax).
#include <ns3/nstime.h>
#include <ns3/object-factory.h>
#include <ns3/simulator.h>

#include <cstdint>
#include <vector>

#include "phold_common.hpp"

namespace {

phold::Rng g_rng(42);
std::vector<phold::LpState> g_state;

void Handle(std::uint32_t lp) {
  phold::LpState& s = g_state[lp];
  ++s.events;
  s.time_sum += ns3::Simulator::Now().GetSeconds();
  const std::uint32_t to = g_rng.below(static_cast<std::uint32_t>(g_state.size()));
  ns3::Simulator::Schedule(ns3::Seconds(g_rng.exp1()), &Handle, to);
}

}  // namespace

int main(int argc, char** argv) {
  const phold::Args a = phold::parse(argc, argv, "map|heap|pq|calendar");
  std::string type = "ns3::MapScheduler";
  if (a.variant == "heap") type = "ns3::HeapScheduler";
  else if (a.variant == "pq") type = "ns3::PriorityQueueScheduler";
  else if (a.variant == "calendar") type = "ns3::CalendarScheduler";
  else if (!a.variant.empty() && a.variant != "map") return 2;
  ns3::ObjectFactory factory;
  factory.SetTypeId(type);
  ns3::Simulator::SetScheduler(factory);

  g_state.resize(a.lps);
  for (std::uint32_t lp = 0; lp < a.lps; ++lp)
    for (std::uint32_t k = 0; k < a.per_lp; ++k)
      ns3::Simulator::Schedule(ns3::Seconds(g_rng.exp1()), &Handle, lp);
  const double end = phold::end_time(a);
  ns3::Simulator::Stop(ns3::Seconds(end));
  const phold::Timer timer;
  ns3::Simulator::Run();
  const phold::Elapsed elapsed = timer.elapsed();
  const std::uint64_t ran = phold::executed(g_state);
  const std::string engine = "ns3-" + (a.variant.empty() ? std::string("map") : a.variant);
  phold::report(engine.c_str(), a, ran, elapsed, end * a.lps * a.per_lp);
  ns3::Simulator::Destroy();
  return 0;
}
