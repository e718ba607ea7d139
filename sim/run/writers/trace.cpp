// trace.json: a run in the Chrome trace-event format (Perfetto, chrome://tracing). The JobManager
// is process 0 (job status, the CheckpointCoordinator's checkpoints); each vertex is a process
// with, per subtask, a thread-state track and checkpoint tracks (one lane per overlapping
// checkpoint). Built from the RunResult only: thread states from the time series' periods,
// phases from the per-subtask checkpoint statistics, barrier arrows from the job graph's edges.
#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "sim/run/writers/trace.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {
namespace {

struct Event {
  char ph = 'X';
  int pid = 0;
  int tid = 0;
  SimTime ts = 0;
  Duration dur = 0;
  std::string name;
  const char* cat = "";
  std::string args;  // a JSON object's body, without braces
  std::int64_t id = -1;  // flows
};

// Up to this many checkpoint lanes per subtask and for the coordinator (concurrent checkpoints,
// an async phase overlapping the next checkpoint's start); more are left out and counted.
constexpr int kLanes = 6;
// Track ids inside a vertex's process: per subtask one state track and kLanes checkpoint lanes.
constexpr int kTracksPerSubtask = 1 + kLanes;
int state_tid(int subtask) { return subtask * kTracksPerSubtask + 1; }
int lane_tid(int subtask, int lane) { return subtask * kTracksPerSubtask + 2 + lane; }
constexpr int kJobManagerPid = 0;
constexpr int kJobStatusTid = 1;
constexpr int kCoordinatorTid = 2;  // + lane

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// Microseconds with the nanoseconds as decimals: exact, so nesting checks hold to the ns.
std::string micros(SimTime ns) {
  if (ns < 0) return "-" + micros(-ns);
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

struct Lanes {  // greedy interval partitioning: a span goes to the first lane free at its start
  std::vector<SimTime> free_at;
  int place(SimTime from, SimTime to) {
    for (std::size_t i = 0; i < free_at.size(); ++i)
      if (free_at[i] <= from) {
        free_at[i] = to;
        return static_cast<int>(i);
      }
    if (free_at.size() >= static_cast<std::size_t>(kLanes)) return -1;
    free_at.push_back(to);
    return static_cast<int>(free_at.size()) - 1;
  }
};

const char* status_name(CheckpointStatus s) {
  switch (s) {
    case CheckpointStatus::in_progress: return "IN_PROGRESS";
    case CheckpointStatus::completed: return "COMPLETED";
    case CheckpointStatus::failed: return "FAILED";
  }
  return "?";
}

bool blocks_thread(const std::string& kind) {
  return kind == "blocked_in_user_call" || kind == "sink_write" || kind == "sink_stop_load";
}

class Builder {
 public:
  explicit Builder(const RunResult& r) : r_(r) {}

  std::vector<Event> build() {
    job_status();
    thread_states();
    std::vector<const CheckpointRecord*> all;
    for (const CheckpointRecord& c : r_.earlier_checkpoints) all.push_back(&c);
    for (const CheckpointRecord& c : r_.checkpoints) all.push_back(&c);
    std::stable_sort(all.begin(), all.end(), [](const auto* a, const auto* b) {
      return a->trigger_time < b->trigger_time;
    });
    subtask_lanes_.resize(r_.vertices.size());
    for (std::size_t v = 0; v < r_.vertices.size(); ++v)
      subtask_lanes_[v].resize(static_cast<std::size_t>(r_.vertices[v].parallelism));
    for (const CheckpointRecord* c : all) checkpoint(*c);
    return std::move(events_);
  }

  int lanes_dropped() const { return lanes_dropped_; }

 private:
  SimTime end_of(const CheckpointRecord& c) const {
    return c.end_time >= 0 ? c.end_time : std::max(r_.end_time, c.trigger_time);
  }

  void span(int pid, int tid, SimTime from, SimTime to, std::string name, const char* cat,
            std::string args = {}) {
    events_.push_back({'X', pid, tid, from, std::max<Duration>(0, to - from), std::move(name), cat,
                       std::move(args), -1});
  }

  void job_status() {
    const std::vector<JobStatusChange>& changes = r_.job_status_changes;
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const SimTime to = i + 1 < changes.size() ? changes[i + 1].time : r_.end_time;
      if (to <= changes[i].time && i + 1 < changes.size()) continue;
      span(kJobManagerPid, kJobStatusTid, changes[i].time, std::max(to, changes[i].time),
           model::to_string(changes[i].to), "job");
    }
  }

  // One span per run of sample periods with the same dominant state (busy, back-pressured,
  // idle: the largest share of the period); the intervals an expired checkpoint's diagnosis
  // found the thread blocked in a user call are cut out of them as "blocked" spans.
  void thread_states() {
    struct Segment {
      SimTime from, to;
      std::string state;
      Duration busy, back_pressured, idle;
    };
    std::map<std::pair<int, int>, std::vector<Segment>> by_task;
    for (const TaskSampleRow& row : r_.timeseries) {
      const model::TaskSample& s = row.sample;
      if (s.period <= 0) continue;
      const char* state = "idle";
      if (s.busy >= s.back_pressured && s.busy >= s.idle) state = "busy";
      else if (s.back_pressured >= s.idle) state = "back-pressured";
      std::vector<Segment>& list = by_task[{row.vertex, row.subtask}];
      const SimTime from = row.end - s.period;
      if (!list.empty() && list.back().state == state && list.back().to == from) {
        Segment& last = list.back();
        last.to = row.end;
        last.busy += s.busy;
        last.back_pressured += s.back_pressured;
        last.idle += s.idle;
      } else {
        list.push_back({from, row.end, state, s.busy, s.back_pressured, s.idle});
      }
    }
    // Blocked intervals per subtask, merged.
    std::map<std::pair<int, int>, std::vector<std::pair<SimTime, SimTime>>> blocked;
    for (const auto* list : {&r_.earlier_checkpoints, &r_.checkpoints})
      for (const CheckpointRecord& c : *list)
        for (const WaitRecord& w : c.waits)
          if (blocks_thread(w.kind))
            blocked[{w.vertex, w.subtask}].push_back({w.since, std::min(w.until, end_of(c))});
    for (auto& [task, intervals] : blocked) {
      std::sort(intervals.begin(), intervals.end());
      std::vector<std::pair<SimTime, SimTime>> merged;
      for (const auto& iv : intervals) {
        if (iv.second <= iv.first) continue;
        if (!merged.empty() && iv.first <= merged.back().second)
          merged.back().second = std::max(merged.back().second, iv.second);
        else
          merged.push_back(iv);
      }
      intervals = std::move(merged);
    }
    for (auto& [task, segments] : by_task) {
      const auto& cuts = blocked[task];
      const int pid = task.first + 1;
      const int tid = state_tid(task.second);
      for (const Segment& s : segments) {
        const std::string args =
            fmt::format("\"busy_ms\":{},\"back_pressured_ms\":{},\"idle_ms\":{}",
                        core::to_millis(s.busy), core::to_millis(s.back_pressured),
                        core::to_millis(s.idle));
        SimTime at = s.from;
        for (const auto& [from, to] : cuts) {
          if (to <= at || from >= s.to) continue;
          if (from > at) span(pid, tid, at, from, s.state, "thread_state", args);
          at = std::max(at, to);
        }
        if (at < s.to) span(pid, tid, at, s.to, s.state, "thread_state", args);
      }
      for (const auto& [from, to] : cuts)
        span(pid, tid, from, to, "blocked in a user call", "thread_state");
    }
    // Counters: the buffers queued in the subtask's input channels and subpartitions.
    for (const TaskSampleRow& row : r_.timeseries)
      events_.push_back({'C', row.vertex + 1, 0, row.end, 0,
                         fmt::format("queued buffers {}/{}", row.subtask + 1,
                                     r_.vertices[static_cast<std::size_t>(row.vertex)].parallelism),
                         "buffers",
                         fmt::format("\"input\":{},\"output\":{}", row.sample.input_buffers,
                                     row.sample.output_buffers),
                         -1});
  }

  // When a subtask's barrier left it downstream: after its alignment (Flink broadcasts the
  // barrier before the sync phase, SubtaskCheckpointCoordinatorImpl.checkpointState).
  static SimTime barrier_out(const CheckpointRecord& c, const SubtaskStats& s) {
    return c.trigger_time + s.start_delay + s.alignment_duration;
  }

  void checkpoint(const CheckpointRecord& c) {
    const SimTime end = end_of(c);
    const std::string title = fmt::format("checkpoint {}", c.id);
    const int coordinator_lane = coordinator_lanes_.place(c.trigger_time, end);
    if (coordinator_lane < 0) {
      ++lanes_dropped_;
      return;
    }
    const int jm_tid = kCoordinatorTid + coordinator_lane;
    span(kJobManagerPid, jm_tid, c.trigger_time, end, title, "checkpoint",
         fmt::format("\"status\":\"{}\",\"acknowledged\":{},\"subtasks\":{}{}", status_name(c.status),
                     c.num_acknowledged, c.num_subtasks,
                     c.failure_reason ? fmt::format(",\"failure_reason\":\"{}\"",
                                                    model::name(*c.failure_reason))
                                      : ""));
    // The tid each subtask's span went to, for the arrows (-1: none).
    std::vector<std::vector<int>> tid_of(c.subtasks.size());
    for (std::size_t v = 0; v < c.subtasks.size() && v < r_.vertices.size(); ++v) {
      tid_of[v].assign(c.subtasks[v].size(), -1);
      for (std::size_t i = 0; i < c.subtasks[v].size(); ++i) {
        const SubtaskStats& s = c.subtasks[v][i];
        const SimTime to = s.acknowledged ? std::max(s.ack_time, c.trigger_time) : end;
        const int lane = subtask_lanes_[v][i].place(c.trigger_time, to);
        if (lane < 0) {
          ++lanes_dropped_;
          continue;
        }
        const int pid = static_cast<int>(v) + 1;
        const int tid = lane_tid(static_cast<int>(i), lane);
        tid_of[v][i] = tid;
        span(pid, tid, c.trigger_time, to,
             s.acknowledged ? title : title + " (not acknowledged)", "checkpoint",
             fmt::format("\"status\":\"{}\",\"unaligned\":{}", status_name(c.status),
                         s.unaligned ? "true" : "false"));
        if (!s.acknowledged) continue;
        SimTime at = c.trigger_time;
        const auto phase = [&](const char* name, Duration d) {
          const SimTime from = std::min(at, to);
          const SimTime until = std::min(at + std::max<Duration>(0, d), to);
          if (until > from) span(pid, tid, from, until, name, "checkpoint_phase");
          at += std::max<Duration>(0, d);
        };
        phase("start delay", s.start_delay);
        phase("alignment", s.alignment_duration);
        phase("sync", s.sync_duration);
        phase("async", s.async_duration);
      }
    }
    // Barrier arrows. A source's barrier comes from the coordinator's trigger RPC; any other
    // subtask's last barrier (the end of its alignment) from the upstream subtask that sent its
    // barrier last among those it reads (the same index on a pointwise edge).
    for (std::size_t v = 0; v < c.subtasks.size() && v < r_.vertices.size(); ++v) {
      const VertexInfo& vertex = r_.vertices[v];
      for (std::size_t i = 0; i < c.subtasks[v].size(); ++i) {
        const SubtaskStats& s = c.subtasks[v][i];
        if (!s.acknowledged || tid_of[v][i] < 0) continue;
        const SimTime arrival = std::min(barrier_out(c, s), s.ack_time);
        if (vertex.input < 0) {
          flow(kJobManagerPid, jm_tid, c.trigger_time, static_cast<int>(v) + 1, tid_of[v][i],
               std::max(arrival, c.trigger_time), "trigger");
          continue;
        }
        const auto u = static_cast<std::size_t>(vertex.input);
        if (u >= c.subtasks.size()) continue;
        int best = -1;
        SimTime sent = 0;
        for (std::size_t j = 0; j < c.subtasks[u].size(); ++j) {
          if (vertex.pointwise && j != i) continue;
          const SubtaskStats& up = c.subtasks[u][j];
          if (!up.acknowledged || tid_of[u][j] < 0) continue;
          const SimTime out = std::min(barrier_out(c, up), up.ack_time);
          if (best < 0 || out > sent) {
            best = static_cast<int>(j);
            sent = out;
          }
        }
        if (best < 0 || sent > arrival) continue;
        flow(static_cast<int>(u) + 1, tid_of[u][static_cast<std::size_t>(best)], sent,
             static_cast<int>(v) + 1, tid_of[v][i], arrival, "barrier");
      }
    }
  }

  void flow(int from_pid, int from_tid, SimTime from, int to_pid, int to_tid, SimTime to,
            const char* name) {
    const std::int64_t id = next_flow_++;
    events_.push_back({'s', from_pid, from_tid, from, 0, name, "barrier", {}, id});
    events_.push_back({'f', to_pid, to_tid, to, 0, name, "barrier", {}, id});
  }

  const RunResult& r_;
  std::vector<Event> events_;
  Lanes coordinator_lanes_;
  std::vector<std::vector<Lanes>> subtask_lanes_;
  int lanes_dropped_ = 0;
  std::int64_t next_flow_ = 1;
};

// Drops what lies outside the window and clips spans to it; a flow stays only with both ends.
std::vector<Event> clip(std::vector<Event> events, const TraceOptions& o) {
  std::vector<Event> kept;
  std::map<std::int64_t, int> flow_ends;
  for (Event& e : events) {
    if (e.ph == 'X') {
      const SimTime from = std::max(e.ts, o.from), to = std::min(e.ts + e.dur, o.to);
      if (to < from || (e.dur > 0 && to == from)) continue;
      e.ts = from;
      e.dur = to - from;
    } else if (e.ts < o.from || e.ts > o.to) {
      continue;
    }
    if (e.ph == 's' || e.ph == 'f') flow_ends[e.id] += 1;
    kept.push_back(std::move(e));
  }
  std::erase_if(kept, [&](const Event& e) {
    return (e.ph == 's' || e.ph == 'f') && flow_ends[e.id] != 2;
  });
  return kept;
}

}  // namespace

std::string trace_json(const RunResult& r, const TraceOptions& options) {
  Builder builder(r);
  std::vector<Event> events = clip(builder.build(), options);
  // Per track in time order; at one instant the longer span first, so parents precede children.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.dur > b.dur;
  });
  std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{";
  fmt::format_to(std::back_inserter(out),
                 "\"scenario\":{},\"job_id\":\"{}\",\"seed\":{},\"flink_version\":\"{}\","
                 "\"start_epoch_ms\":{},\"window_from_ms\":{},\"window_to_ms\":{},"
                 "\"checkpoint_spans_left_out\":{}",
                 quoted(r.scenario_name), r.job_id, r.seed, model::to_string(r.flink_version),
                 r.start_epoch_ms, core::to_millis(options.from),
                 core::to_millis(std::min(options.to, r.end_time)), builder.lanes_dropped());
  out += "},\n\"traceEvents\":[\n";
  std::vector<std::string> lines;
  // Names of processes and threads, and their order.
  const auto meta = [&](int pid, int tid, const char* what, const std::string& name, int sort) {
    lines.push_back(fmt::format(
        "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"args\":{{\"name\":{}}}}}", pid,
        tid, what, quoted(name)));
    lines.push_back(fmt::format(
        "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"{}\",\"args\":{{\"sort_index\":{}}}}}",
        pid, tid,
        std::string_view(what) == "process_name" ? "process_sort_index" : "thread_sort_index",
        sort));
  };
  meta(kJobManagerPid, 0, "process_name", "JobManager", 0);
  meta(kJobManagerPid, kJobStatusTid, "thread_name", "job status", kJobStatusTid);
  std::map<std::pair<int, int>, bool> used;
  for (const Event& e : events) used[{e.pid, e.tid}] = true;
  for (int lane = 0; lane < kLanes; ++lane)
    if (used.count({kJobManagerPid, kCoordinatorTid + lane}))
      meta(kJobManagerPid, kCoordinatorTid + lane, "thread_name",
           lane == 0 ? std::string("CheckpointCoordinator")
                     : fmt::format("CheckpointCoordinator (concurrent {})", lane + 1),
           kCoordinatorTid + lane);
  for (std::size_t v = 0; v < r.vertices.size(); ++v) {
    const VertexInfo& vertex = r.vertices[v];
    const int pid = static_cast<int>(v) + 1;
    meta(pid, 0, "process_name", vertex.name, pid);
    for (int i = 0; i < vertex.parallelism; ++i) {
      const std::string task = fmt::format("{} ({}/{})", vertex.name, i + 1, vertex.parallelism);
      if (used.count({pid, state_tid(i)})) meta(pid, state_tid(i), "thread_name", task, state_tid(i));
      for (int lane = 0; lane < kLanes; ++lane)
        if (used.count({pid, lane_tid(i, lane)}))
          meta(pid, lane_tid(i, lane), "thread_name",
               task + (lane == 0 ? " checkpoints" : fmt::format(" checkpoints ({})", lane + 1)),
               lane_tid(i, lane));
    }
  }
  for (const Event& e : events) {
    std::string line = fmt::format("{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{},", e.ph, e.pid,
                                   e.tid, micros(e.ts));
    if (e.ph == 'X') line += "\"dur\":" + micros(e.dur) + ",";
    if (e.ph == 's' || e.ph == 'f') line += fmt::format("\"id\":{},", e.id);
    if (e.ph == 'f') line += "\"bp\":\"e\",";
    line += fmt::format("\"name\":{},\"cat\":\"{}\"", quoted(e.name), e.cat);
    if (!e.args.empty() || e.ph == 'C') line += ",\"args\":{" + e.args + "}";
    line += "}";
    lines.push_back(std::move(line));
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += ",\n";
    out += lines[i];
  }
  out += "\n]}\n";
  return out;
}

}  // namespace ckptsim::run
