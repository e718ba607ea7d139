// SplitRing and SlotArena against a pair of std::deque: the same operations in a random order
// give the same queues, through wrap-arounds, growth and block reuse.
#include <catch2/catch.hpp>

#include <deque>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/split_ring.hpp"

namespace ckptsim::core {
namespace {

std::vector<int> contents(const SplitRing<int>& r, const SlotArena<int>& a) {
  std::vector<int> out;
  for (std::size_t i = 0; i < r.size(); ++i) out.push_back(r.at(a, i));
  return out;
}

std::vector<int> contents(const std::deque<int>& front, const std::deque<int>& back) {
  std::vector<int> out(front.begin(), front.end());
  out.insert(out.end(), back.begin(), back.end());
  return out;
}

}  // namespace

TEST_CASE("SplitRing: two queues back to back behave as two deques", "[core]") {
  SlotArena<int> arena;
  std::vector<SplitRing<int>> rings(5);
  CHECK(rings[0].head(arena) == nullptr);  // empty: nothing to fetch
  std::vector<std::deque<int>> front(5), back(5);
  RandomStream random(17, 1);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    const auto k = static_cast<std::size_t>(random.uniform_int(0, 4));
    SplitRing<int>& r = rings[k];
    const int op = static_cast<int>(random.uniform_int(0, 9));
    if (op <= 2) {
      r.push_back(arena, next);
      back[k].push_back(next++);
    } else if (op == 3) {
      r.push_front(arena, next);
      front[k].push_front(next++);
    } else if (op == 4 && !back[k].empty()) {
      r.advance();
      front[k].push_back(back[k].front());
      back[k].pop_front();
    } else if (op == 5 && !front[k].empty()) {
      REQUIRE(r.at(arena, 0) == front[k].front());
      REQUIRE(r.head(arena) == &r.at(arena, 0));  // what a prefetch asks for
      r.pop_front();
      front[k].pop_front();
    } else if (op == 6) {  // to the head of the back queue
      r.insert(arena, r.front_size(), next);
      back[k].push_front(next++);
    } else if (op == 7 && r.size() > 0) {
      const auto i =
          static_cast<std::size_t>(random.uniform_int(0, static_cast<std::int64_t>(r.size()) - 1));
      r.erase(arena, i);
      if (i < front[k].size())
        front[k].erase(front[k].begin() + static_cast<std::ptrdiff_t>(i));
      else
        back[k].erase(back[k].begin() + static_cast<std::ptrdiff_t>(i - front[k].size()));
    } else if (op == 8 && random.uniform_int(0, 20) == 0) {
      r.clear();
      front[k].clear();
      back[k].clear();
    } else if (op == 9 && random.uniform_int(0, 50) == 0) {
      r.release(arena);  // its block goes back to the arena for the others to reuse
      front[k].clear();
      back[k].clear();
    }
    REQUIRE(r.front_size() == front[k].size());
    REQUIRE(r.back_size() == back[k].size());
    REQUIRE(contents(r, arena) == contents(front[k], back[k]));
  }
  // Freed blocks were reused: the arena holds far fewer slots than were ever pushed.
  CHECK(arena.slots() < static_cast<std::size_t>(next) / 4);
}

TEST_CASE("SplitRing: 16 bytes; a ring grows by doubling and moves its slots", "[core]") {
  STATIC_REQUIRE(sizeof(SplitRing<int>) == 16);
  SlotArena<int> arena;
  SplitRing<int> r;
  CHECK(r.capacity() == 0);
  for (int i = 0; i < 9; ++i) r.push_back(arena, i);
  CHECK(r.capacity() == 16);
  for (int i = 0; i < 4; ++i) r.advance();
  r.pop_front();
  CHECK(r.front_size() == 3);
  CHECK(r.back_size() == 5);
  CHECK(r.at(arena, 0) == 1);
  CHECK(r.at(arena, 3) == 4);
}

}  // namespace ckptsim::core
