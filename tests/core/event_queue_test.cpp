// The pending-event set against a reference: a std::map ordered by (time, scheduling sequence),
// under random interleavings of pushes (at the clock, below a peeked time, near and far future),
// pops, peeks and cancels; plus the corner cases one by one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/random.hpp"
#include "sim/core/simulation.hpp"

using namespace ckptsim::core;

namespace {

constexpr SimTime kMax = std::numeric_limits<SimTime>::max();
constexpr SimTime k2p62 = SimTime{1} << 62;

EventHandler* fake_target(std::uint64_t n) {
  return reinterpret_cast<EventHandler*>(static_cast<std::uintptr_t>(0x1000 + 16 * (n % 4096)));
}

// The queue and a reference model side by side; every operation checks the two agree.
class Differential {
 public:
  explicit Differential(SimTime clock) : clock_(clock) {}

  void push(SimTime t) {
    REQUIRE(t >= clock_);
    const std::uint64_t seq = next_seq_++;
    const EventId id = q_.push(t, fake_target(seq), static_cast<std::uint32_t>(seq * 7), seq);
    CHECK(q_.is_pending(id));
    ref_.emplace(std::make_pair(t, seq), id);
    REQUIRE(index_.count(id.slot) == 0);
    index_[id.slot] = pending_.size();
    pending_.push_back({id, {t, seq}});
  }

  void pop() {
    if (ref_.empty()) {
      CHECK(q_.empty());
      return;
    }
    REQUIRE_FALSE(q_.empty());
    const auto it = ref_.begin();
    const EventQueue::Popped p = q_.pop();
    REQUIRE(p.time == it->first.first);
    REQUIRE(p.payload.arg == it->first.second);
    CHECK(p.payload.target == fake_target(it->first.second));
    CHECK(p.payload.kind == static_cast<std::uint32_t>(it->first.second * 7));
    CHECK_FALSE(q_.is_pending(it->second));
    clock_ = p.time;
    retire(it->second);
    ref_.erase(it);
  }

  void peek() {
    if (ref_.empty()) return;
    REQUIRE(q_.next_time() == ref_.begin()->first.first);
  }

  void cancel_random(RandomStream& rng) {
    if (pending_.empty()) return;
    const auto i = static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(pending_.size()) - 1));
    const auto [id, key] = pending_[i];
    REQUIRE(q_.cancel(id));
    CHECK_FALSE(q_.is_pending(id));
    ref_.erase(key);
    retire(id);
  }

  void cancel_stale(RandomStream& rng) {
    if (stale_.empty()) return;
    const EventId id = stale_[static_cast<std::size_t>(
        rng.uniform_int(0, static_cast<std::int64_t>(stale_.size()) - 1))];
    CHECK_FALSE(q_.is_pending(id));
    REQUIRE_FALSE(q_.cancel(id));
  }

  void check_sizes() const {
    REQUIRE(q_.size() == ref_.size());
    REQUIRE(q_.empty() == ref_.empty());
    // Cancelled entries never outnumber max(pending, compaction threshold).
    REQUIRE(q_.stored() <= 2 * q_.size() + 1024);
  }

  SimTime clock() const { return clock_; }
  std::size_t size() const { return ref_.size(); }
  // The earliest pending time, or the clock when nothing is pending.
  SimTime reference_next() const { return ref_.empty() ? clock_ : ref_.begin()->first.first; }

 private:
  void retire(EventId id) {
    const auto at = index_.find(id.slot);
    REQUIRE(at != index_.end());
    const std::size_t i = at->second;
    REQUIRE(pending_[i].first.generation == id.generation);
    index_.erase(at);
    if (i + 1 != pending_.size()) {
      pending_[i] = pending_.back();
      index_[pending_[i].first.slot] = i;
    }
    pending_.pop_back();
    if (stale_.size() < 4096) {
      stale_.push_back(id);
    } else {
      stale_[next_seq_ % stale_.size()] = id;
    }
  }

  EventQueue q_;
  std::map<std::pair<SimTime, std::uint64_t>, EventId> ref_;
  std::vector<std::pair<EventId, std::pair<SimTime, std::uint64_t>>> pending_;
  std::unordered_map<std::uint32_t, std::size_t> index_;  // slot -> position in pending_
  std::vector<EventId> stale_;
  SimTime clock_;
  std::uint64_t next_seq_ = 0;
};

// a + d for d >= 0, capped at the largest time.
SimTime saturating_add(SimTime a, SimTime d) {
  return a > kMax - d ? kMax : a + d;
}
// to - from for from <= to, capped at the largest time (the difference may not fit).
SimTime capped_span(SimTime from, SimTime to) {
  const std::uint64_t span = static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
  return span > static_cast<std::uint64_t>(kMax) ? kMax : static_cast<SimTime>(span);
}

// One random run: `ops` operations in phases that grow the set, drain it, or cancel most of
// what they schedule (so compaction runs), with times that tie, come close, and jump far.
void random_run(std::uint64_t seed, SimTime start, int ops) {
  RandomStream rng(seed, "event-queue-differential");
  Differential d(start);
  int phase = 0;
  for (int op = 0; op < ops; ++op) {
    if (op % 5000 == 0) phase = static_cast<int>(rng.uniform_int(0, 3));
    // 0: grow, 1: drain, 2: cancel-heavy churn, 3: balanced
    const std::int64_t r = rng.uniform_int(0, 99);
    const std::int64_t push_p = phase == 0 ? 55 : phase == 1 ? 20 : phase == 2 ? 45 : 35;
    const std::int64_t pop_p = phase == 0 ? 20 : phase == 1 ? 55 : phase == 2 ? 10 : 35;
    const std::int64_t cancel_p = phase == 2 ? 35 : 8;
    if (r < push_p) {
      const SimTime c = d.clock();
      SimTime t = c;
      switch (rng.uniform_int(0, 9)) {
        case 0:
        case 1:
          t = c;  // at the clock: ties with whatever runs now
          break;
        case 2: {  // at or below the time a peek may have moved the floor to
          const SimTime next = d.reference_next();
          t = saturating_add(c, rng.uniform_int(0, capped_span(c, next)));
          break;
        }
        case 3:
        case 4:
        case 5:
          t = saturating_add(c, rng.uniform_int(0, 16));  // many equal times
          break;
        case 6:
        case 7:
          t = saturating_add(c, static_cast<SimTime>(rng.exponential(1e6)));
          break;
        case 8:
          t = saturating_add(c, rng.uniform_int(0, k2p62));  // far future, up to 2^62 away
          break;
        default:
          t = saturating_add(c, capped_span(c, kMax) / 2 + rng.uniform_int(0, 3));  // to the top
          break;
      }
      d.push(t);
    } else if (r < push_p + pop_p) {
      d.pop();
    } else if (r < push_p + pop_p + cancel_p) {
      d.cancel_random(rng);
    } else if (r < push_p + pop_p + cancel_p + 4) {
      d.cancel_stale(rng);
    } else {
      d.peek();
    }
    d.check_sizes();
  }
  while (d.size() > 0) {
    d.peek();
    d.pop();
    d.check_sizes();
  }
}

struct Recorder final : EventHandler {
  Simulation* sim = nullptr;
  std::vector<std::pair<SimTime, std::uint64_t>> seen;
  void on_event(std::uint32_t, std::uint64_t arg) override { seen.emplace_back(sim->now(), arg); }
};

}  // namespace

TEST_CASE("event queue agrees with a (time, sequence) reference under random operations",
          "[core][event_queue]") {
  for (const std::uint64_t seed : {1U, 2U, 3U}) random_run(seed, 0, 120000);
}

TEST_CASE("event queue agrees with the reference at negative and near-maximal times",
          "[core][event_queue]") {
  random_run(11, std::numeric_limits<SimTime>::min(), 30000);
  random_run(12, -5, 30000);
  random_run(13, kMax - 1000, 30000);
  random_run(14, k2p62 - 8, 30000);
}

TEST_CASE("equal times pop in scheduling order across refills, peeks and cancels",
          "[core][event_queue]") {
  EventQueue q;
  std::vector<EventId> ids;
  // Interleave three times so each refill redistributes entries of several keys.
  for (std::uint64_t i = 0; i < 3000; ++i) {
    const SimTime t = 1000 + static_cast<SimTime>(i % 3) * 37;
    ids.push_back(q.push(t, fake_target(i), 0, i));
  }
  for (std::uint64_t i = 0; i < 3000; i += 5) CHECK(q.cancel(ids[i]));
  CHECK(q.next_time() == 1000);
  // Below the peeked floor, then at it again: both must keep their places.
  q.push(999, fake_target(0), 0, 100000);
  q.push(1000, fake_target(0), 0, 100001);
  std::vector<std::pair<SimTime, std::uint64_t>> got;
  while (!q.empty()) {
    const EventQueue::Popped p = q.pop();
    got.emplace_back(p.time, p.payload.arg);
  }
  std::vector<std::pair<SimTime, std::uint64_t>> want{{999, 100000}};
  for (SimTime t : {SimTime{1000}, SimTime{1037}, SimTime{1074}}) {
    for (std::uint64_t i = 0; i < 3000; ++i)
      if (1000 + static_cast<SimTime>(i % 3) * 37 == t && i % 5 != 0) want.emplace_back(t, i);
    if (t == 1000) want.emplace_back(1000, 100001);
  }
  CHECK(got == want);
}

TEST_CASE("cancelling an event that already ran returns false", "[core][event_queue]") {
  EventQueue q;
  const EventId a = q.push(5, fake_target(1), 0, 1);
  const EventId b = q.push(5, fake_target(2), 0, 2);
  CHECK(q.pop().payload.arg == 1);
  CHECK_FALSE(q.is_pending(a));
  CHECK_FALSE(q.cancel(a));
  CHECK(q.is_pending(b));
  CHECK(q.size() == 1);
  // The slot of `a` is reused; the stale id must not reach the new event.
  const EventId c = q.push(6, fake_target(3), 0, 3);
  CHECK(c.slot == a.slot);
  CHECK_FALSE(q.cancel(a));
  CHECK(q.is_pending(c));
  CHECK(q.cancel(c));
  CHECK_FALSE(q.cancel(c));
  CHECK_FALSE(q.cancel(EventId{}));
  CHECK_FALSE(q.cancel(EventId{1000, 1}));
  CHECK(q.pop().payload.arg == 2);
  CHECK(q.empty());
}

TEST_CASE("next_time skips cancelled events", "[core][event_queue]") {
  EventQueue q;
  std::vector<EventId> ids;
  for (SimTime t = 10; t <= 100; t += 10) ids.push_back(q.push(t, fake_target(0), 0, 0));
  CHECK(q.next_time() == 10);
  CHECK(q.cancel(ids[0]));
  CHECK(q.next_time() == 20);
  CHECK(q.cancel(ids[1]));
  CHECK(q.cancel(ids[2]));
  CHECK(q.next_time() == 40);
  CHECK(q.cancel(ids[9]));
  CHECK(q.cancel(ids[3]));
  CHECK(q.next_time() == 50);
  CHECK(q.size() == 5);
  CHECK(q.pop().time == 50);
  CHECK_FALSE(q.cancel(ids[4]));
  for (std::size_t i = 5; i < 9; ++i) CHECK(q.cancel(ids[i]));
  CHECK(q.empty());
  q.push(100, fake_target(0), 0, 7);
  CHECK(q.next_time() == 100);
  CHECK(q.pop().payload.arg == 7);
}

TEST_CASE("large time jumps near 2^62 keep order and ties", "[core][event_queue]") {
  EventQueue q;
  const std::vector<SimTime> times{k2p62 + 1, 0,      k2p62,     k2p62 - 1, kNever, 1,
                                   k2p62,     kNever, k2p62 - 1, kMax,      kMax,   k2p62 + 1};
  for (std::size_t i = 0; i < times.size(); ++i) q.push(times[i], fake_target(i), 0, i);
  std::vector<std::pair<SimTime, std::uint64_t>> want;
  for (std::size_t i = 0; i < times.size(); ++i) want.emplace_back(times[i], i);
  std::stable_sort(want.begin(), want.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<SimTime, std::uint64_t>> got;
  while (!q.empty()) {
    const EventQueue::Popped p = q.pop();
    got.emplace_back(p.time, p.payload.arg);
    // after a jump, schedule at the new clock: it must run before anything later
    if (p.payload.arg == 2) {
      q.push(k2p62, fake_target(99), 0, 99);
      want.insert(std::find(want.begin(), want.end(), std::make_pair(k2p62 + 1, std::uint64_t{0})),
                  std::make_pair(k2p62, std::uint64_t{99}));
    }
  }
  CHECK(got == want);
}

TEST_CASE("cancelled timers do not pile up", "[core][event_queue]") {
  EventQueue q;
  for (int i = 0; i < 10; ++i) q.push(1'000'000'000 + i, fake_target(0), 0, 0);
  for (int i = 0; i < 200000; ++i) {
    const EventId timeout = q.push(600'000'000'000 + i, fake_target(1), 1, 1);
    q.push(i, fake_target(2), 2, 2);
    CHECK(q.cancel(timeout));
    CHECK(q.pop().payload.arg == 2);
    REQUIRE(q.stored() <= 2 * q.size() + 1024);
  }
  CHECK(q.size() == 10);
}

TEST_CASE("scheduling between the clock and a peeked event after run_until", "[core]") {
  Simulation sim;
  Recorder r;
  r.sim = &sim;
  sim.schedule_at(seconds(10), &r, 0, 1);
  sim.schedule_at(seconds(10), &r, 0, 2);
  sim.run_until(seconds(1));  // peeks at 10 s
  CHECK(r.seen.empty());
  sim.schedule_at(seconds(2), &r, 0, 3);
  sim.schedule_at(seconds(10), &r, 0, 4);
  sim.schedule_at(sim.now(), &r, 0, 5);
  sim.run_until(seconds(1));
  sim.run_until(seconds(3));
  sim.schedule_in(0, &r, 0, 6);
  sim.schedule_at(seconds(10), &r, 0, 7);
  sim.run_until(kNever);
  const std::vector<std::pair<SimTime, std::uint64_t>> expected{
      {seconds(1), 5},  {seconds(2), 3},  {seconds(3), 6}, {seconds(10), 1},
      {seconds(10), 2}, {seconds(10), 4}, {seconds(10), 7}};
  CHECK(r.seen == expected);
}

// An event before the limit that does not move (delay 0: a quiet event the hybrid network's skip
// lets run at its own time) keeps its place ahead of the events moved onto its time.
TEST_CASE("delay_before puts the events that stay ahead of those moved onto their time",
          "[core][event_queue]") {
  EventQueue q;
  q.push(seconds(3), fake_target(1), 1, 1);  // moves by 2 s, onto 5 s
  q.push(seconds(5), fake_target(2), 1, 2);  // stays
  q.push(seconds(4), fake_target(3), 1, 3);  // moves by 1 s, onto 5 s
  q.delay_before(seconds(6), [](SimTime at, const EventHandler*, std::uint32_t, std::uint64_t) {
    return at == seconds(5) ? SimTime{0} : seconds(5) - at;
  });
  std::vector<std::uint64_t> order;
  while (!q.empty()) {
    const EventQueue::Popped p = q.pop();
    CHECK(p.time == seconds(5));
    order.push_back(p.payload.arg);
  }
  CHECK(order == std::vector<std::uint64_t>{2, 1, 3});
}

// The hybrid network's skip (sim/model/network/hybrid_network.hpp): the events before a limit move
// later, each by its own delay, keeping their EventIds; they come out as if pushed again in the
// order they would have popped, after the events already pending at equal times. Cancelled
// events stay dead, and for_each_live sees exactly the live ones. The moved events usually land
// below the limit, under the floor the queue peeked at: the case lower_floor must handle.
TEST_CASE("delay_before moves the events before a limit, keeping their ids and order",
          "[core][event_queue]") {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    RandomStream rng(seed, "delay_before");
    EventQueue q;
    struct Ref {
      SimTime time;
      std::uint64_t order;
      std::uint64_t arg;
      EventId id;
    };
    std::vector<Ref> live;
    std::uint64_t next = 0;
    for (int i = 0; i < 300; ++i) {
      const SimTime t = rng.uniform_int(0, 2000) * (rng.uniform01() < 0.3 ? 1 : 1000);
      const EventId id = q.push(t, fake_target(next), 1, next);
      live.push_back({t, next, next, id});
      ++next;
    }
    const auto by_order = [](const Ref& a, const Ref& b) {
      return std::tie(a.time, a.order) < std::tie(b.time, b.order);
    };
    // Cancel some, pop some (their slots are reused by later pushes), peek past the clock.
    for (int i = 0; i < 40; ++i) {
      const auto k = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(live.size()) - 1));
      REQUIRE(q.cancel(live[k].id));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
    std::sort(live.begin(), live.end(), by_order);
    for (int i = 0; i < 60; ++i) {
      const EventQueue::Popped p = q.pop();
      REQUIRE(p.payload.arg == live.front().arg);
      live.erase(live.begin());
    }
    const SimTime clock = live.front().time;
    for (int i = 0; i < 30; ++i) {
      const SimTime t = clock + rng.uniform_int(0, 500000);
      const EventId id = q.push(t, fake_target(next), 1, next);
      live.push_back({t, next, next, id});
      ++next;
    }
    std::sort(live.begin(), live.end(), by_order);
    CHECK(q.next_time() == live.front().time);

    std::vector<SimTime> seen;
    q.for_each_live([&](SimTime t, const EventHandler*, std::uint32_t) { seen.push_back(t); });
    std::vector<SimTime> expected_times;
    for (const Ref& r : live) expected_times.push_back(r.time);
    std::sort(seen.begin(), seen.end());
    CHECK(seen == expected_times);

    const SimTime limit = clock + rng.uniform_int(1, 400000);
    const auto delay = [](std::uint64_t arg) { return SimTime{1000} + static_cast<SimTime>(arg % 3) * 7; };
    // A delay that throws leaves every event where it was (the checks below hold as if it had
    // not been called).
    int calls = 0;
    REQUIRE(std::count_if(live.begin(), live.end(), [&](const Ref& r) { return r.time < limit; }) >=
            3);
    CHECK_THROWS_AS(q.delay_before(limit,
                                   [&](SimTime, const EventHandler*, std::uint32_t, std::uint64_t) {
                                     if (++calls == 3) throw std::runtime_error("third");
                                     return SimTime{1};
                                   }),
                    std::runtime_error);
    // Each moved event is asked about at its own time.
    std::map<std::uint64_t, SimTime> time_of;
    for (const Ref& r : live) time_of[r.arg] = r.time;
    std::size_t asked = 0;
    q.delay_before(limit, [&](SimTime at, const EventHandler*, std::uint32_t, std::uint64_t arg) {
      CHECK(at == time_of.at(arg));
      ++asked;
      return delay(arg);
    });
    CHECK(asked == static_cast<std::size_t>(std::count_if(
                       live.begin(), live.end(), [&](const Ref& r) { return r.time < limit; })));
    for (Ref& r : live) {  // `live` is in pop order: the moved ones are pushed again in it
      if (r.time >= limit) continue;
      r.time += delay(r.arg);
      r.order = next++;
    }
    std::sort(live.begin(), live.end(), by_order);
    for (const Ref& r : live) CHECK(q.is_pending(r.id));
    for (const Ref& r : live) {
      REQUIRE_FALSE(q.empty());
      const EventQueue::Popped p = q.pop();
      REQUIRE(p.time == r.time);
      REQUIRE(p.payload.arg == r.arg);
    }
    CHECK(q.empty());
  }
}
