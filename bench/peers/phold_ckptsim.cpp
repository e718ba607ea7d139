// B1 PHOLD on ckptsim's kernel (ckptsim::core::Simulation): N logical processes, M initial
// events each, every event increments its LP's 64-byte state and sends one event to a uniformly
// random LP after an exponential delay. Time is integer ns with mean increment 1 us
// (1 + floor(1000 * Exp(1)) ns, mean 1000.5 ns). The random numbers come from phold::Rng, the
// generator every C++ program here uses (the same xoshiro256** as ckptsim's RandomStream, with
// a multiply-shift instead of RandomStream::uniform_int's rejection and 64-bit modulo), so the
// engines differ only in their event lists and dispatch.
// Built by bench/CMakeLists.txt as ckptsim_phold; run by bench/peers/run.sh.
#include <cstdint>
#include <vector>

#include "bench/peers/phold_common.hpp"
#include "sim/core/simulation.hpp"

namespace {

using namespace ckptsim;

constexpr double kMeanNs = 1000.5;

class Phold final : public core::EventHandler {
 public:
  Phold(core::Simulation& sim, std::uint32_t lps) : sim_(sim), rng_(42), state_(lps) {}

  void on_event(std::uint32_t, std::uint64_t lp) override {
    phold::LpState& s = state_[lp];
    ++s.events;
    s.time_sum += static_cast<double>(sim_.now());
    const std::uint32_t to = rng_.below(static_cast<std::uint32_t>(state_.size()));
    sim_.schedule_in(delay(), this, 0, to);
  }
  core::Duration delay() { return 1 + static_cast<core::Duration>(1000.0 * rng_.exp1()); }
  const std::vector<phold::LpState>& state() const { return state_; }

 private:
  core::Simulation& sim_;
  phold::Rng rng_;
  std::vector<phold::LpState> state_;
};

}  // namespace

int main(int argc, char** argv) {
  const phold::Args a = phold::parse(argc, argv, "");
  core::Simulation sim;
  sim.reserve(static_cast<std::size_t>(a.lps) * a.per_lp + 16);
  Phold model(sim, a.lps);
  for (std::uint32_t lp = 0; lp < a.lps; ++lp)
    for (std::uint32_t k = 0; k < a.per_lp; ++k) sim.schedule_in(model.delay(), &model, 0, lp);
  const auto end = static_cast<core::SimTime>(phold::end_time(a) * kMeanNs);
  const phold::Timer timer;
  const std::uint64_t ran = sim.run_until(end);
  const phold::Elapsed elapsed = timer.elapsed();
  if (ran != phold::executed(model.state())) return 1;
  phold::report("ckptsim", a, ran, elapsed, phold::end_time(a) * a.lps * a.per_lp);
  return 0;
}
