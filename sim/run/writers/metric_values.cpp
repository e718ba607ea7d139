// The metric values of a run at its instant, computed once for REST and Prometheus: the JM
// process gauges, the JM job gauges (DefaultCheckpointStatsTracker, SchedulerBase's job metrics,
// JobStatusMetrics) and the task metrics (TaskIOMetricGroup, NettyShuffleMetricFactory,
// InputProcessorUtil's checkpoint gauges). Reads only the RunResult.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "sim/run/recorder.hpp"
#include "sim/run/writers/metrics.hpp"
#include "sim/run/writers/writers.hpp"

namespace ckptsim::run {
namespace {

using model::JobStatus;

MetricValue gauge(std::string name, std::int64_t v) {
  return {std::move(name), MetricType::gauge, v};
}
MetricValue gauge(std::string name, double v) {
  return {std::move(name), MetricType::gauge, v};
}
MetricValue gauge(std::string name, std::string v) {
  return {std::move(name), MetricType::gauge, std::move(v)};
}
MetricValue counter(std::string name, std::int64_t v) {
  return {std::move(name), MetricType::counter, v};
}
MetricValue meter(std::string name, double v) {
  return {std::move(name), MetricType::meter, v};
}

// The JobMaster of the latest submission sees only its own status changes: they start where
// the job last became (or left) INITIALIZING.
std::size_t submission_start(const RunResult& r) {
  std::optional<std::size_t> to, from;
  for (std::size_t i = 0; i < r.job_status_changes.size(); ++i) {
    if (r.job_status_changes[i].to == JobStatus::initializing) to = i;
    if (r.job_status_changes[i].from == JobStatus::initializing) from = i;
  }
  return to.value_or(from.value_or(0));
}

// ExecutionGraph.getStatusTimestamp: epoch ms the job last entered `status`, 0 if never.
std::int64_t status_timestamp(const RunResult& r, JobStatus status) {
  std::int64_t at = 0;
  for (std::size_t i = submission_start(r); i < r.job_status_changes.size(); ++i) {
    if (r.job_status_changes[i].to == status) at = epoch_ms(r, r.job_status_changes[i].time);
  }
  return at;
}

// SchedulerBase.registerJobMetrics: numRestarts counts the restarts of this JobMaster.
std::int64_t number_of_restarts(const RunResult& r) {
  if (r.submissions <= 1) return r.restarts;
  std::int64_t n = 0;
  for (std::size_t i = submission_start(r); i < r.job_status_changes.size(); ++i) {
    if (r.job_status_changes[i].from == JobStatus::restarting) ++n;
  }
  return n;
}

// DefaultCheckpointStatsTracker.latestCompletedCheckpoint: the last one to complete, savepoints
// included.
const CheckpointRecord* latest_completed(const RunResult& r) {
  const CheckpointRecord* best = nullptr;
  for (const CheckpointRecord& c : r.checkpoints) {
    if (c.status != CheckpointStatus::completed) continue;
    if (best == nullptr || c.end_time > best->end_time ||
        (c.end_time == best->end_time && c.id > best->id))
      best = &c;
  }
  return best;
}

std::vector<MetricValue> jobmanager_metrics(const RunResult& r) {
  // JobManagerMetricGroup: ResourceManager's slot and TaskManager gauges, the Dispatcher's
  // running jobs (a JobManagerRunner exists until the job is globally terminal).
  const bool terminal = model::is_globally_terminal(r.final_status);
  int used = 0;
  if (!terminal) {
    for (const VertexInfo& v : r.vertices) used = std::max(used, v.parallelism);
  }
  return {gauge("numRegisteredTaskManagers", std::int64_t{r.taskmanagers}),
          gauge("numRunningJobs", std::int64_t{terminal ? 0 : 1}),
          gauge("taskSlotsAvailable", std::int64_t{std::max(0, r.slots_total - used)}),
          gauge("taskSlotsTotal", std::int64_t{r.slots_total})};
}

std::vector<MetricValue> job_metrics(const RunResult& r) {
  const std::int64_t now = epoch_ms(r, r.end_time);
  std::vector<MetricValue> out;
  // DefaultCheckpointStatsTracker.registerMetrics; the last* gauges read the same statistics as
  // the REST checkpoint details, so they are taken from that body.
  out.push_back(gauge("totalNumberOfCheckpoints", r.counts.total));
  out.push_back(gauge("numberOfInProgressCheckpoints", r.counts.in_progress));
  out.push_back(gauge("numberOfCompletedCheckpoints", r.counts.completed));
  out.push_back(gauge("numberOfFailedCheckpoints", r.counts.failed));
  out.push_back(gauge("lastCheckpointRestoreTimestamp",
                      r.latest_restored ? epoch_ms(r, r.latest_restored->time) : std::int64_t{-1}));
  std::int64_t size = -1, full_size = -1, duration = -1, processed = -1, persisted = -1, id = -1,
               completed_at = -1;
  std::string path = "n/a";
  if (const CheckpointRecord* c = latest_completed(r)) {
    const nlohmann::ordered_json stats = rest_checkpoint_details(r, *c);
    size = stats["checkpointed_size"].get<std::int64_t>();
    full_size = stats["state_size"].get<std::int64_t>();
    duration = stats["end_to_end_duration"].get<std::int64_t>();
    processed = stats["processed_data"].get<std::int64_t>();
    persisted = stats["persisted_data"].get<std::int64_t>();
    completed_at = stats["latest_ack_timestamp"].get<std::int64_t>();
    path = stats["external_path"].get<std::string>();
    id = c->id;
  }
  out.push_back(gauge("lastCheckpointSize", size));
  out.push_back(gauge("lastCheckpointFullSize", full_size));
  out.push_back(gauge("lastCheckpointDuration", duration));
  out.push_back(gauge("lastCheckpointProcessedData", processed));
  out.push_back(gauge("lastCheckpointPersistedData", persisted));
  out.push_back(gauge("lastCheckpointExternalPath", path));
  // lastCompletedCheckpointId came with 1.17 (FLINK-29195): CheckpointStatsTracker.registerMetrics
  // on release-1.15/-1.16 registers no such gauge.
  if (r.flink_version >= model::FlinkVersion::v1_17)
    out.push_back(gauge("lastCompletedCheckpointId", id));
  // FLINK-36344: lastCheckpointCompletedTimestamp (the latest acknowledgement), 2.0 on.
  if (r.flink_version >= model::FlinkVersion::v2_0)
    out.push_back(gauge("lastCheckpointCompletedTimestamp", completed_at));

  // SchedulerBase.registerJobMetrics: DownTimeGauge, UpTimeGauge, numRestarts; fullRestarts
  // (deprecated, the same counter) until FLINK-36355 removed it in 2.0.
  const JobStatus status = r.final_status;
  // JobStatus.isTerminalState: globally terminal, or SUSPENDED (locally terminal).
  const bool terminal = model::is_globally_terminal(status) || status == JobStatus::suspended;
  const std::int64_t running_ts = status_timestamp(r, JobStatus::running);
  const std::int64_t failing_ts = status_timestamp(r, JobStatus::failing);
  std::int64_t downtime = -1;
  if (!terminal)
    downtime = failing_ts <= running_ts ? 0 : std::max<std::int64_t>(0, now - failing_ts);
  std::int64_t uptime = 0;
  if (status == JobStatus::running) uptime = std::max<std::int64_t>(0, now - running_ts);
  if (terminal) uptime = -1;
  out.push_back(gauge("downtime", downtime));
  out.push_back(gauge("uptime", uptime));
  out.push_back(gauge("numRestarts", number_of_restarts(r)));
  if (r.flink_version < model::FlinkVersion::v2_0)
    out.push_back(gauge("fullRestarts", number_of_restarts(r)));

  // JobStatusMetrics with metrics.job.status.enable's default CURRENT_TIME: "<status>Time", the
  // time spent in the current status, 0 for the others; every non-terminal status but
  // RECONCILING.
  std::int64_t current_since = now;
  if (!r.job_status_changes.empty()) current_since = epoch_ms(r, r.job_status_changes.back().time);
  for (JobStatus s : {JobStatus::initializing, JobStatus::created, JobStatus::running,
                      JobStatus::failing, JobStatus::cancelling, JobStatus::restarting}) {
    std::string name = model::to_string(s);
    std::transform(name.begin(), name.end(), name.begin(), [](char ch) {
      return static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    });
    out.push_back(gauge(name + "Time", status == s ? std::max<std::int64_t>(0, now - current_since)
                                                   : std::int64_t{0}));
  }
  return out;
}

// An execution attempt as the JobManager log's "Deploying ..." line names it.
struct Deployment {
  SimTime time = 0;
  int attempt = 0;
  std::string attempt_id;
  std::string location;  // TaskManagerLocation.toString(): "<resource id> @ <host> (dataPort=..)"
};

std::string between(const std::string& s, const std::string& from, const std::string& to,
                    std::size_t& pos) {
  const std::size_t a = s.find(from, pos);
  if (a == std::string::npos) return {};
  const std::size_t b = s.find(to, a + from.size());
  if (b == std::string::npos) return {};
  pos = b;
  return s.substr(a + from.size(), b - a - from.size());
}

// Execution.deploy logs every attempt with its id and location: the scope variables of its
// TaskMetricGroup. Keyed by (vertex, subtask), oldest first.
std::map<std::pair<int, int>, std::vector<Deployment>> deployments(const RunResult& r) {
  std::map<std::string, int> vertex_of;
  for (std::size_t v = 0; v < r.vertices.size(); ++v)
    vertex_of[r.vertices[v].id] = static_cast<int>(v);
  std::map<std::pair<int, int>, std::vector<Deployment>> out;
  for (const LogRecord& rec : r.log) {
    if (rec.message.rfind("Deploying ", 0) != 0) continue;
    std::size_t pos = 0;
    Deployment d;
    d.time = rec.time;
    const std::string attempt = between(rec.message, " (attempt #", ")", pos);
    d.attempt_id = between(rec.message, " with attempt id ", " and vertex id ", pos);
    const std::string execution_vertex = between(rec.message, " and vertex id ", " to ", pos);
    d.location = between(rec.message, " to ", " with allocation id ", pos);
    const std::size_t underscore = execution_vertex.rfind('_');
    if (attempt.empty() || underscore == std::string::npos) continue;
    auto vertex = vertex_of.find(execution_vertex.substr(0, underscore));
    if (vertex == vertex_of.end()) continue;
    int subtask = 0;
    const std::string index = execution_vertex.substr(underscore + 1);
    std::from_chars(index.data(), index.data() + index.size(), subtask);
    std::from_chars(attempt.data(), attempt.data() + attempt.size(), d.attempt);
    out[{vertex->second, subtask}].push_back(std::move(d));
  }
  return out;
}

// A run without deployment lines (a hand-built result): the Recorder's naming of attempt 0.
Deployment first_attempt(const RunResult& r, int vertex, int subtask) {
  Deployment d;
  d.attempt_id = fmt::format(
      "{}_{}_{}_0", stable_id(fmt::format("{}/{}/eg{}", r.scenario_name, r.seed, r.submissions)),
      r.vertices[static_cast<std::size_t>(vertex)].id, subtask);
  const int tm = subtask % std::max(1, r.taskmanagers) + 1;
  d.location =
      fmt::format("ckptsim-taskmanager-{} @ ckptsim-taskmanager-{} (dataPort=6121)", tm, tm);
  return d;
}

// TimerGauge.getValue: ms per second of the last measured period, a long capped at 1000.
std::int64_t ms_per_second(Duration d, Duration period) {
  if (period <= 0) return 0;
  return std::clamp<std::int64_t>(d * 1000 / period, 0, 1000);
}

double per_second(std::int64_t n, Duration period) {
  return period <= 0 ? 0.0 : static_cast<double>(n) * 1e9 / static_cast<double>(period);
}

SubtaskMetrics subtask_metrics(const RunResult& r, int v, int s, const Deployment& d,
                               const std::vector<const TaskSampleRow*>& samples) {
  SubtaskMetrics out;
  out.vertex = v;
  out.subtask = s;
  out.attempt = d.attempt;
  out.attempt_id = d.attempt_id;
  const std::size_t at = d.location.find(" @ ");
  const std::size_t paren = d.location.find(" (", at == std::string::npos ? 0 : at);
  out.tm_id = d.location.substr(0, at);
  out.host = at == std::string::npos ? out.tm_id : d.location.substr(at + 3, paren - at - 3);

  const bool source = r.vertices[static_cast<std::size_t>(v)].input < 0;
  const model::TaskSample& last = samples.back()->sample;
  std::int64_t records_in = 0, records_out = 0;
  Duration covered = 0, idle = 0, back_pressured = 0;
  for (const TaskSampleRow* row : samples) {
    records_in += row->sample.records_in;
    records_out += row->sample.records_out;
    covered += row->sample.period;
    idle += row->sample.idle;
    back_pressured += row->sample.back_pressured;
  }
  // A source task has no network input: its task-level numRecordsIn stays 0 (the records it
  // reads count in its source operator's scope).
  if (source) records_in = 0;
  const double last_records_in = source ? 0.0 : per_second(last.records_in, last.period);

  std::vector<MetricValue>& m = out.metrics;
  // TaskIOMetricGroup
  const std::int64_t idle_ms = ms_per_second(last.idle, last.period);
  const std::int64_t soft_ms = ms_per_second(last.back_pressured, last.period);
  const std::int64_t hard_ms = 0;  // ckptsim's back-pressure is the soft kind (output unavailable)
  m.push_back(counter("numRecordsIn", records_in));
  m.push_back(counter("numRecordsOut", records_out));
  m.push_back(meter("numRecordsInPerSecond", last_records_in));
  m.push_back(meter("numRecordsOutPerSecond", per_second(last.records_out, last.period)));
  m.push_back(gauge("idleTimeMsPerSecond", idle_ms));
  m.push_back(gauge("softBackPressuredTimeMsPerSecond", soft_ms));
  m.push_back(gauge("hardBackPressuredTimeMsPerSecond", hard_ms));
  m.push_back(gauge("backPressuredTimeMsPerSecond", soft_ms + hard_ms));
  m.push_back(gauge("busyTimeMsPerSecond", 1000.0 - static_cast<double>(std::min<std::int64_t>(
                                                        idle_ms + soft_ms + hard_ms, 1000))));
  const std::int64_t acc_idle = core::to_millis(idle);
  const std::int64_t acc_back_pressured = core::to_millis(back_pressured);
  // MetricNames.ACC_TASK_*_TIME came with 1.16 (not in MetricNames on release-1.15).
  if (r.flink_version >= model::FlinkVersion::v1_16) {
    m.push_back(gauge("accumulateIdleTimeMs", acc_idle));
    m.push_back(gauge("accumulateBackPressuredTimeMs", acc_back_pressured));
    m.push_back(gauge("accumulateBusyTimeMs", static_cast<double>(core::to_millis(covered) -
                                                                  acc_idle - acc_back_pressured)));
  }

  // NettyShuffleMetricFactory: the task's queue lengths under Shuffle.Netty, and (1.x) the
  // deprecated copies in the task's "buffers" group (FLINK-36355 removed them in 2.0).
  const std::int64_t input_queue = source ? 0 : last.input_buffers;
  m.push_back(gauge("Shuffle.Netty.Input.Buffers.inputQueueLength", input_queue));
  m.push_back(
      gauge("Shuffle.Netty.Output.Buffers.outputQueueLength", std::int64_t{last.output_buffers}));
  if (r.flink_version < model::FlinkVersion::v2_0) {
    m.push_back(gauge("buffers.inputQueueLength", input_queue));
    m.push_back(gauge("buffers.outputQueueLength", std::int64_t{last.output_buffers}));
  }

  // The checkpoint gauges, in nanoseconds, of the latest checkpoint this attempt took part in
  // (known here from its acknowledgement). InputProcessorUtil.registerCheckpointMetrics gives a
  // task with network inputs both, from its CheckpointBarrierHandler; a source task
  // (SourceOperatorStreamTask, SourceStreamTask) has only checkpointStartDelayNanos.
  std::int64_t alignment_ns = 0, start_delay_ns = 0;
  std::int64_t latest = -1;
  const auto vi = static_cast<std::size_t>(v);
  const auto si = static_cast<std::size_t>(s);
  for (const CheckpointRecord& c : r.checkpoints) {
    if (vi >= c.subtasks.size() || si >= c.subtasks[vi].size()) continue;
    const SubtaskStats& st = c.subtasks[vi][si];
    if (!st.acknowledged || st.ack_time < d.time || c.id < latest) continue;
    latest = c.id;
    alignment_ns = st.alignment_duration;
    start_delay_ns = st.start_delay;
  }
  if (!source) m.push_back(gauge("checkpointAlignmentTime", alignment_ns));
  m.push_back(gauge("checkpointStartDelayNanos", start_delay_ns));
  return out;
}

std::vector<SubtaskMetrics> task_metrics(const RunResult& r) {
  const auto deployed = deployments(r);
  std::map<std::pair<int, int>, std::vector<const TaskSampleRow*>> samples;
  for (const TaskSampleRow& row : r.timeseries) {
    if (row.end <= r.end_time) samples[{row.vertex, row.subtask}].push_back(&row);
  }
  std::vector<SubtaskMetrics> out;
  for (int v = 0; v < static_cast<int>(r.vertices.size()); ++v) {
    for (int s = 0; s < r.vertices[static_cast<std::size_t>(v)].parallelism; ++s) {
      auto rows = samples.find({v, s});
      if (rows == samples.end()) continue;
      std::vector<Deployment> attempts;
      if (auto it = deployed.find({v, s}); it != deployed.end()) attempts = it->second;
      if (attempts.empty()) attempts.push_back(first_attempt(r, v, s));
      // MetricStore's representative attempt: the newest one that has reported, with the
      // counters of that attempt alone.
      for (std::size_t i = attempts.size(); i-- > 0;) {
        const SimTime from = i == 0 ? std::numeric_limits<SimTime>::min() : attempts[i].time;
        const SimTime until =
            i + 1 < attempts.size() ? attempts[i + 1].time : std::numeric_limits<SimTime>::max();
        std::vector<const TaskSampleRow*> mine;
        for (const TaskSampleRow* row : rows->second) {
          if (row->end > from && row->end <= until) mine.push_back(row);
        }
        if (mine.empty()) continue;
        out.push_back(subtask_metrics(r, v, s, attempts[i], mine));
        break;
      }
    }
  }
  return out;
}

}  // namespace

MetricSnapshot metric_values(const RunResult& r) {
  MetricSnapshot snapshot;
  snapshot.jobmanager = jobmanager_metrics(r);
  // MetricFetcherImpl retains only the jobs that are not globally terminal.
  if (model::is_globally_terminal(r.final_status)) return snapshot;
  snapshot.job = job_metrics(r);
  snapshot.subtasks = task_metrics(r);
  return snapshot;
}

std::string java_double_string(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  // The shortest digits that round-trip, laid out as Double.toString does: plain for
  // 10^-3 <= |v| < 10^7, else computerized scientific notation ("1.0E7").
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const std::size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::stoi(sci.substr(e + 1));
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    std::string whole, fraction;
    if (exponent >= 0) {
      const auto w = static_cast<std::size_t>(exponent) + 1;
      whole = digits.substr(0, std::min(w, digits.size()));
      if (whole.size() < w) whole.append(w - whole.size(), '0');
      fraction = digits.size() > w ? digits.substr(w) : "0";
    } else {
      whole = "0";
      fraction = std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    }
    return sign + whole + "." + fraction;
  }
  const std::string fraction = digits.size() > 1 ? digits.substr(1) : "0";
  return sign + digits.substr(0, 1) + "." + fraction + "E" + std::to_string(exponent);
}

std::string metric_value_string(const MetricValue& m) {
  if (const auto* i = std::get_if<std::int64_t>(&m.value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&m.value)) return java_double_string(*d);
  return std::get<std::string>(m.value);
}

std::map<std::pair<int, int>, std::vector<SimTime>> attempt_start_times(const RunResult& r) {
  std::map<std::pair<int, int>, std::vector<SimTime>> out;
  for (const auto& [subtask, attempts] : deployments(r))
    for (const Deployment& d : attempts) out[subtask].push_back(d.time);
  return out;
}

}  // namespace ckptsim::run
