// Hold-model benchmark of the kernel: with N events pending, each executed event schedules one
// new event at now + Exp(mean 1 us); reports ns per executed event at 1e3 and 1e6 pending.
#include <benchmark/benchmark.h>

#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"

namespace {

class HoldModel final : public ckptsim::core::EventHandler {
 public:
  HoldModel(ckptsim::core::Simulation& sim, std::uint64_t seed) : sim_(sim), rng_(seed, "hold") {}
  void on_event(std::uint32_t, std::uint64_t) override {
    sim_.schedule_in(delay(), this, 0);
  }
  ckptsim::core::Duration delay() {
    return 1 + static_cast<ckptsim::core::Duration>(rng_.exponential(1000.0));
  }

 private:
  ckptsim::core::Simulation& sim_;
  ckptsim::core::RandomStream rng_;
};

void BM_HoldModel(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  ckptsim::core::Simulation sim;
  sim.reserve(pending + 16);
  HoldModel model(sim, 42);
  for (std::size_t i = 0; i < pending; ++i) sim.schedule_in(model.delay(), &model, 0);
  // Warm up so the heap reaches its steady shape.
  for (std::size_t i = 0; i < pending; ++i) sim.step();
  for (auto _ : state) sim.step();
  // One iteration = one executed event, so the Time column is ns per event.
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HoldModel)->Arg(1000)->Arg(1000000);

// Cancellation cost: schedule a timer and cancel it (the pattern of checkpoint timeouts).
void BM_ScheduleCancel(benchmark::State& state) {
  ckptsim::core::Simulation sim;
  HoldModel model(sim, 7);
  for (int i = 0; i < 1000; ++i) sim.schedule_in(model.delay(), &model, 0);
  for (auto _ : state) {
    auto id = sim.schedule_in(model.delay(), &model, 0);
    sim.cancel(id);
    sim.step();
  }
}
BENCHMARK(BM_ScheduleCancel);

}  // namespace

BENCHMARK_MAIN();
