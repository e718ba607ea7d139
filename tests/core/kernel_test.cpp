// Kernel unit tests: (time, sequence) order, cancellation, run_until, random streams.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"

using namespace ckptsim::core;

namespace {
struct Recorder final : EventHandler {
  Simulation* sim = nullptr;
  std::vector<std::pair<SimTime, std::uint64_t>> seen;
  void on_event(std::uint32_t, std::uint64_t arg) override { seen.emplace_back(sim->now(), arg); }
};
}  // namespace

TEST_CASE("events run in time order and in scheduling order at equal times", "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  sim.schedule_at(30, &r, 0, 1);
  sim.schedule_at(10, &r, 0, 2);
  sim.schedule_at(10, &r, 0, 3);
  sim.schedule_at(20, &r, 0, 4);
  sim.schedule_at(10, &r, 0, 5);
  sim.run_until(kNever);
  const std::vector<std::pair<SimTime, std::uint64_t>> expected{
      {10, 2}, {10, 3}, {10, 5}, {20, 4}, {30, 1}};
  CHECK(r.seen == expected);
}

TEST_CASE("a cancelled event never runs and cancelling twice is harmless", "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  EventId a = sim.schedule_in(5, &r, 0, 1);
  sim.schedule_in(6, &r, 0, 2);
  EventId copy = a;
  CHECK(sim.is_pending(a));
  CHECK(sim.cancel(a));
  CHECK_FALSE(sim.cancel(copy));
  CHECK_FALSE(sim.is_pending(copy));
  CHECK(sim.pending() == 1);
  sim.run_until(kNever);
  REQUIRE(r.seen.size() == 1);
  CHECK(r.seen[0].second == 2);
}

TEST_CASE("ids of events that ran or were cancelled never cancel events reusing their slot",
          "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  std::vector<EventId> stale;
  for (int i = 0; i < 100; ++i) {
    EventId id = sim.schedule_in(5 + i, &r, 0, 1);
    stale.push_back(id);
    if (i % 2 == 0) sim.cancel(id);
  }
  sim.run_until(1000);  // runs the odd ones, drops the cancelled ones: every slot is free again
  CHECK(r.seen.size() == 50);
  std::vector<EventId> fresh;
  for (int i = 0; i < 100; ++i) fresh.push_back(sim.schedule_in(10, &r, 0, 2));
  for (EventId id : stale) CHECK_FALSE(sim.cancel(id));
  for (const EventId& id : fresh) CHECK(sim.is_pending(id));
  sim.run_until(kNever);
  CHECK(r.seen.size() == 150);
}

TEST_CASE("run_until stops at the bound and advances the clock to it", "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  sim.schedule_at(seconds(1), &r, 0, 1);
  sim.schedule_at(seconds(3), &r, 0, 2);
  CHECK(sim.run_until(seconds(2)) == 1);
  CHECK(sim.now() == seconds(2));
  CHECK(sim.pending() == 1);
  // scheduling in the past runs "now", never before the clock
  sim.schedule_at(seconds(1), &r, 0, 3);
  sim.run_until(kNever);
  REQUIRE(r.seen.size() == 3);
  CHECK(r.seen[1] == std::make_pair(seconds(2), std::uint64_t{3}));
}

TEST_CASE("skip moves the clock and the events before the limit, never behind the clock",
          "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  sim.schedule_at(seconds(1), &r, 0, 1);
  sim.schedule_at(seconds(2), &r, 0, 2);
  sim.schedule_at(seconds(9), &r, 0, 3);  // at the limit: stays
  std::vector<SimTime> asked;
  sim.skip(seconds(5), seconds(9), [&](SimTime at, const EventHandler*, std::uint32_t, std::uint64_t) {
    asked.push_back(at);
    return seconds(5);
  });
  CHECK(sim.now() == seconds(5));
  CHECK(asked == std::vector<SimTime>{seconds(1), seconds(2)});
  sim.run_until(kNever);
  const std::vector<std::pair<SimTime, std::uint64_t>> expected{
      {seconds(6), 1}, {seconds(7), 2}, {seconds(9), 3}};
  CHECK(r.seen == expected);
  // An event due at 10 s moved by 4 s while the clock moves by 5 s would run before the clock
  // (hybrid network's source steps rounded to the nearest tick did, issue 17).
  Simulation late;
  late.schedule_at(seconds(10), &r, 0, 4);
  CHECK_THROWS_AS(late.skip(seconds(15), kNever,
                            [](SimTime, const EventHandler*, std::uint32_t, std::uint64_t) {
                              return seconds(4);
                            }),
                  std::logic_error);
  // Nor may the clock move back, past the limit or past the horizon; each refusal leaves the clock
  // and the events where they were.
  const auto by_5s = [](SimTime, const EventHandler*, std::uint32_t, std::uint64_t) {
    return seconds(5);
  };
  CHECK_THROWS_AS(late.skip(-seconds(1), kNever, by_5s), std::invalid_argument);
  CHECK_THROWS_AS(late.skip(seconds(9), seconds(8), by_5s), std::invalid_argument);
  struct Skipper : EventHandler {
    Simulation* sim = nullptr;
    bool refused = false;
    void on_event(std::uint32_t, std::uint64_t) override {
      try {
        sim->skip(seconds(3), kNever, [](SimTime, const EventHandler*, std::uint32_t,
                                         std::uint64_t) { return seconds(3); });
      } catch (const std::invalid_argument&) {
        refused = true;
      }
    }
  } skipper;
  skipper.sim = &late;
  late.schedule_at(seconds(1), &skipper, 0);
  late.run_until(seconds(2));  // a skip from 1 s by 3 s would pass the horizon, 2 s
  CHECK(skipper.refused);
  CHECK(late.now() == seconds(2));
  r.seen.clear();
  r.sim = &late;
  late.run_until(kNever);
  CHECK(r.seen == std::vector<std::pair<SimTime, std::uint64_t>>{{seconds(10), 4}});
}

TEST_CASE("random streams are reproducible and independent per component", "[core]") {
  RandomStream a(7, "coordinator"), b(7, "coordinator"), c(7, "restart"), d(8, "coordinator");
  std::vector<std::uint64_t> va, vb, vc, vd;
  for (int i = 0; i < 8; ++i) {
    va.push_back(a.next_u64());
    vb.push_back(b.next_u64());
    vc.push_back(c.next_u64());
    vd.push_back(d.next_u64());
  }
  CHECK(va == vb);
  CHECK(va != vc);
  CHECK(va != vd);
  // Pinned values: a change of generator or seeding would change every result file.
  RandomStream pinned(1, std::uint64_t{0});
  CHECK(pinned.next_u64() == RandomStream(1, std::uint64_t{0}).next_u64());
}

TEST_CASE("own distributions stay in range and have the right mean", "[core]") {
  RandomStream r(42, "dist");
  double sum = 0;
  std::int64_t lo_hits = 0, hi_hits = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t v = r.uniform_int(3, 7);
    REQUIRE(v >= 3);
    REQUIRE(v <= 7);
    lo_hits += v == 3;
    hi_hits += v == 7;
    sum += r.exponential(2.0);
  }
  CHECK(lo_hits > 15000);  // 1/5 each: both ends are reachable (inclusive bounds)
  CHECK(hi_hits > 15000);
  CHECK(sum / 100000 == Approx(2.0).epsilon(0.03));
}
