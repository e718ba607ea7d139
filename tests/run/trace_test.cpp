// trace.json: Chrome trace-event structure per track (spans nested, time monotone), flows whose
// two ends exist inside spans, the thread states and checkpoint phases, and the time window.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/run_file.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/trace.hpp"
#include "sim/scenario/scenario.hpp"

namespace ckptsim {
namespace {

using nlohmann::json;

run::RunResult run_yaml(const std::string& yaml, const std::string& name) {
  const auto loaded = scenario::load_string(yaml, name, {});
  REQUIRE(loaded.ok());
  return run::run(*loaded.scenario);
}

struct Checked {
  std::map<std::string, int> spans_by_name;
  std::size_t flows = 0;
  std::size_t counters = 0;
  std::int64_t min_ts = INT64_MAX, max_end = -1;  // ns
};

// The structural rules a trace viewer relies on; returns what it saw.
Checked check_structure(const std::string& text) {
  const json trace = json::parse(text);
  REQUIRE(trace.contains("traceEvents"));
  Checked seen;
  using Track = std::pair<int, int>;
  // Times in integer nanoseconds: the file writes microseconds with three exact decimals, and
  // comparing doubles would see ts + dur of one span overlap the next span's ts.
  const auto ns = [](const json& v) { return std::llround(v.get<double>() * 1000); };
  std::map<Track, std::int64_t> last_ts;
  std::map<Track, std::vector<std::pair<std::int64_t, std::int64_t>>> open;  // stack of [ts, end]
  std::map<Track, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  std::map<std::int64_t, std::vector<std::tuple<char, Track, std::int64_t>>> flow_ends;
  for (const json& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    REQUIRE(ph.size() == 1);
    if (ph == "M") continue;
    const Track track{e.at("pid").get<int>(), e.at("tid").get<int>()};
    const std::int64_t ts = ns(e.at("ts"));
    // Monotone per track.
    if (last_ts.count(track)) CHECK(ts >= last_ts[track]);
    last_ts[track] = ts;
    seen.min_ts = std::min(seen.min_ts, ts);
    if (ph == "X") {
      const std::int64_t end = ts + ns(e.at("dur"));
      seen.max_end = std::max(seen.max_end, end);
      auto& stack = open[track];
      while (!stack.empty() && ts >= stack.back().second) stack.pop_back();
      // Properly nested: a span that starts inside another ends inside it.
      if (!stack.empty()) CHECK(end <= stack.back().second);
      stack.push_back({ts, end});
      spans[track].push_back({ts, end});
      seen.spans_by_name[e.at("name").get<std::string>()] += 1;
    } else if (ph == "s" || ph == "f") {
      flow_ends[e.at("id").get<std::int64_t>()].push_back({ph[0], track, ts});
    } else if (ph == "C") {
      seen.counters += 1;
      CHECK(e.at("args").is_object());
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  // Each flow has one start and one end, not before it, each inside a span of its track.
  for (const auto& [id, ends] : flow_ends) {
    REQUIRE(ends.size() == 2);
    CHECK(std::get<0>(ends[0]) != std::get<0>(ends[1]));
    const auto& start = std::get<0>(ends[0]) == 's' ? ends[0] : ends[1];
    const auto& finish = std::get<0>(ends[0]) == 's' ? ends[1] : ends[0];
    CHECK(std::get<2>(finish) >= std::get<2>(start));
    for (const auto* end : {&start, &finish}) {
      bool inside = false;
      for (const auto& [from, to] : spans[std::get<1>(*end)])
        inside = inside || (from <= std::get<2>(*end) && std::get<2>(*end) <= to);
      CHECK(inside);
    }
    seen.flows += 1;
  }
  return seen;
}

}  // namespace

TEST_CASE("the seed incident's trace shows the task thread blocked in the Doris writer") {
  const auto loaded = scenario::load_string(scenario::default_scenario_yaml(), "<default>", {});
  REQUIRE(loaded.ok());
  const run::RunResult r = run::run(*loaded.scenario);
  const std::string text = run::trace_json(r);
  Checked seen = check_structure(text);
  CHECK(seen.spans_by_name["blocked in a user call"] == 3);  // once per failover cycle
  CHECK(seen.spans_by_name["busy"] > 0);
  CHECK(seen.spans_by_name["sync"] == r.counts.completed);
  CHECK(seen.spans_by_name["RESTARTING"] == 3);
  CHECK(seen.counters == r.timeseries.size());
  // The coordinator's span per checkpoint, the trigger arrow per completed one (a source).
  int coordinator = 0;
  for (const auto& [name, n] : seen.spans_by_name)
    if (name.rfind("checkpoint ", 0) == 0 && name.find("not acknowledged") == std::string::npos)
      coordinator += n;
  CHECK(coordinator >= static_cast<int>(r.checkpoints.size()));
  CHECK(seen.flows == static_cast<std::size_t>(r.counts.completed));
  CHECK(run::trace_json(r) == text);
}

TEST_CASE("barrier arrows follow the job graph's edges between subtasks") {
  const run::RunResult r = run_yaml(R"(
name: trace-arrows
seed: 3
duration: 1 min
flink:
  execution.checkpointing.interval: 10 s
  pipeline.operator-chaining: false
job:
  name: arrows
  vertices:
    - name: "Source: S"
      parallelism: 2
      rate: 200 records/s
    - name: "Map"
      parallelism: 2
      input: "Source: S"
    - name: "Sink: K"
      parallelism: 3
      input: { from: "Map", ship: rebalance }
)", "<trace-arrows>");
  Checked seen = check_structure(run::trace_json(r));
  // Per completed checkpoint: 2 trigger arrows to the sources, 2 barriers Source -> Map
  // (forward, same index), 3 Map -> Sink (one from the Map subtask that sent last).
  REQUIRE(r.vertices.size() == 3);
  CHECK(r.vertices[1].pointwise);
  CHECK_FALSE(r.vertices[2].pointwise);
  CHECK(r.counts.completed >= 4);
  CHECK(seen.flows == static_cast<std::size_t>(7 * r.counts.completed));
  CHECK(seen.spans_by_name["alignment"] + seen.spans_by_name["start delay"] > 0);
}

TEST_CASE("a trace window keeps only the events inside it and the flows with both ends") {
  const run::RunResult r = tests::run_file("scenarios/catalog/b11-skew-long-alignment.yaml");
  const std::string whole = run::trace_json(r);
  run::TraceOptions window;
  window.from = core::minutes(2);
  window.to = core::minutes(3);
  const std::string part = run::trace_json(r, window);
  CHECK(part.size() * 5 < whole.size());
  const Checked seen = check_structure(part);
  CHECK(seen.min_ts >= core::minutes(2));
  CHECK(seen.max_end <= core::minutes(3));
  CHECK(seen.flows > 0);
  const Checked all = check_structure(whole);
  CHECK(all.flows > seen.flows);
  run::TraceOptions empty;
  empty.from = empty.to = core::kHour * 5;
  CHECK(check_structure(run::trace_json(r, empty)).flows == 0);
}

}  // namespace ckptsim
