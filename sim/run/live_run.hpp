// A run that a caller advances step by step and looks at while it goes: `ckptsim serve` paces it
// in wall time and publishes snapshots; run() drives it to the end. Same scenario + seed = the
// same run, however it is sliced and however often it is looked at.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/model/config.hpp"
#include "sim/run/result.hpp"

namespace ckptsim::run {

// A request made to the running job from outside its timeline (the REST API's savepoint, stop,
// cancel and checkpoint operations), followed until it ends.
struct OperationStatus {
  enum class State { in_progress, completed, failed } state = State::in_progress;
  std::int64_t checkpoint_id = -1;  // the savepoint or checkpoint it made (-1: none yet)
  std::string failure;              // failed: why, as Flink's message says it
};

class LiveRun {
 public:
  LiveRun(const model::Scenario& scenario, std::optional<std::uint64_t> seed);
  ~LiveRun();
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  // Runs the events up to `until` (at most the scenario's duration), at most `max_events` of
  // them; true when it got there (the clock is then at `until`).
  bool advance(SimTime until, std::uint64_t max_events = UINT64_MAX);
  SimTime now() const;
  SimTime duration() const;
  bool finished() const { return now() >= duration(); }

  // Keeps the run's history bounded (run/retention.hpp): every `window` of simulated time, the
  // time-series rows older than `window` are merged. 0 (the default): everything is kept, as
  // `ckptsim run` needs for its files.
  void set_retention(Duration window);

  // What the run produced up to now, as a finished run's result looks (end_time = now, the
  // job's and tasks' current states). Leaves the run as it was.
  RunResult snapshot() const;
  // The result of the whole run; the LiveRun is spent afterwards.
  RunResult finish(bool stopped_early);

  // Carries out `action` (its `at` is ignored) now, as the timeline action of that kind would,
  // and returns an id to follow it by (operation()).
  std::uint64_t request(model::TimelineAction action);
  OperationStatus operation(std::uint64_t id) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ckptsim::run
