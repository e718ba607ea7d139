// The metric views of a run (REST /metrics family and Prometheus text) carry Flink's metric
// semantics, agree with each other and with the REST checkpoint statistics, and the Prometheus
// text is well-formed exposition format 0.0.4.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/run_file.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/metrics.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/run/sample_run.hpp"

namespace {

using nlohmann::ordered_json;
using namespace ckptsim;

// The seed scenario (a CDC -> Doris job that fails over) and a back-pressured one: the sink of
// short-sink-stall stalls from 12 to 16 min, the run is stopped at 14 min.
const run::RunResult& seed_run() {
  static const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  return r;
}
const run::RunResult& back_pressured_run() {
  static const run::RunResult r =
      tests::run_file_until("scenarios/examples/short-sink-stall.yaml", core::minutes(14));
  return r;
}

// A small parser of the text exposition format 0.0.4: every line is a HELP, a TYPE or a sample
// of a family declared before it; names and labels as the format defines them.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Parsed {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;
  std::vector<std::string> errors;
};

std::optional<double> go_float(const std::string& s) {
  if (s == "NaN") return std::nan("");
  if (s == "+Inf" || s == "Inf") return HUGE_VAL;
  if (s == "-Inf") return -HUGE_VAL;
  static const std::regex number(R"([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)");
  if (!std::regex_match(s, number)) return std::nullopt;
  return std::stod(s);
}

Parsed parse_prometheus(const std::string& text) {
  static const std::regex metric_name("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex label_name("[a-zA-Z_][a-zA-Z0-9_]*");
  Parsed p;
  std::set<std::string> helped;
  std::set<std::string> seen_series;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto error = [&](const std::string& what) {
    p.errors.push_back("line " + std::to_string(number) + ": " + what + ": " + line);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, rest;
      words >> name;
      std::getline(words, rest);
      if (!std::regex_match(name, metric_name)) error("bad metric name");
      if (line[2] == 'H') {
        if (!helped.insert(name).second) error("second HELP");
        continue;
      }
      if (p.types.count(name)) error("second TYPE");
      const std::string type = rest.empty() ? "" : rest.substr(1);
      if (type != "gauge" && type != "counter" && type != "summary" && type != "histogram" &&
          type != "untyped")
        error("bad type");
      p.types[name] = type;
      continue;
    }
    if (line[0] == '#') continue;
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!std::regex_match(s.name, metric_name)) error("bad metric name");
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find('=', i);
        if (eq == std::string::npos) {
          error("label without =");
          break;
        }
        const std::string key = line.substr(i, eq - i);
        if (!std::regex_match(key, label_name)) error("bad label name");
        if (eq + 1 >= line.size() || line[eq + 1] != '"') {
          error("label value not quoted");
          break;
        }
        std::string value;
        i = eq + 2;
        for (; i < line.size() && line[i] != '"'; ++i) {
          if (line[i] == '\\') {
            ++i;
            if (i >= line.size()) break;
            if (line[i] == 'n')
              value += '\n';
            else if (line[i] == '\\' || line[i] == '"')
              value += line[i];
            else
              error("bad escape");
          } else {
            value += line[i];
          }
        }
        if (i >= line.size()) {
          error("unterminated label value");
          break;
        }
        ++i;  // closing quote
        if (!s.labels.emplace(key, value).second) error("repeated label");
        if (i < line.size() && line[i] == ',') ++i;
      }
      if (i >= line.size()) {
        error("unterminated label set");
        continue;
      }
      ++i;  // '}'
    }
    if (i >= line.size() || line[i] != ' ') {
      error("no value");
      continue;
    }
    std::string value_text = line.substr(i + 1);
    if (const std::size_t sp = value_text.find(' '); sp != std::string::npos)
      value_text = value_text.substr(0, sp);  // an optional timestamp follows
    const auto value = go_float(value_text);
    if (!value) error("bad value");
    s.value = value.value_or(0);
    const auto type = p.types.find(s.name);
    if (type == p.types.end() || type->second != "gauge") error("sample of no declared gauge");
    std::string series = s.name;
    for (const auto& [k, v] : s.labels) series += "," + k + "=" + v;
    if (!seen_series.insert(series).second) error("repeated series");
    p.samples.push_back(std::move(s));
  }
  return p;
}

std::map<std::string, std::string> as_map(const ordered_json& metrics) {
  std::map<std::string, std::string> out;
  for (const auto& m : metrics) out[m["id"].get<std::string>()] = m["value"].get<std::string>();
  return out;
}

std::vector<std::string> ids_of(const ordered_json& listing) {
  std::vector<std::string> out;
  for (const auto& m : listing) out.push_back(m["id"].get<std::string>());
  return out;
}

std::int64_t as_long(const std::string& s) {
  return std::stoll(s);
}

// The checkpoint DefaultCheckpointStatsTracker.latestCompletedCheckpoint names: the last one to
// complete, savepoints included.
const run::CheckpointRecord* last_to_complete(const run::RunResult& r) {
  const run::CheckpointRecord* best = nullptr;
  for (const auto& c : r.checkpoints) {
    if (c.status == run::CheckpointStatus::completed && (!best || c.end_time > best->end_time))
      best = &c;
  }
  return best;
}

// A sample_run() with two samples per subtask, the last one half idle / a quarter
// back-pressured for subtask 0 of each vertex and fully busy for subtask 1.
run::RunResult sampled_run() {
  run::RunResult r = tests::sample_run();
  r.vertices[1].input = 0;
  for (core::SimTime end : {core::minutes(29), core::minutes(30)}) {
    for (int v = 0; v < 2; ++v) {
      for (int s = 0; s < 2; ++s) {
        run::TaskSampleRow row;
        row.end = end;
        row.vertex = v;
        row.subtask = s;
        row.sample.period = core::kSecond;
        row.sample.idle = s == 0 ? core::milliseconds(500) : 0;
        row.sample.back_pressured = s == 0 ? core::milliseconds(250) : 0;
        row.sample.busy = core::kSecond - row.sample.idle - row.sample.back_pressured;
        row.sample.records_in = 100 * (s + 1);
        row.sample.records_out = 10 * (s + 1);
        row.sample.input_buffers = 3;
        row.sample.output_buffers = 5;
        r.timeseries.push_back(row);
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("the job's checkpoint gauges show the statistics of the REST checkpoint endpoints") {
  for (const run::RunResult* r : {&seed_run(), &back_pressured_run()}) {
    INFO(r->scenario_name);
    const ordered_json checkpoints = run::rest_checkpoints(*r);
    const auto m = as_map(run::rest_job_metrics(*r, ids_of(run::rest_job_metrics(*r, {}))));
    CHECK(as_long(m.at("numberOfFailedCheckpoints")) == r->counts.failed);
    CHECK(as_long(m.at("numberOfCompletedCheckpoints")) ==
          checkpoints["counts"]["completed"].get<std::int64_t>());
    CHECK(as_long(m.at("numberOfInProgressCheckpoints")) ==
          checkpoints["counts"]["in_progress"].get<std::int64_t>());
    CHECK(as_long(m.at("totalNumberOfCheckpoints")) ==
          checkpoints["counts"]["total"].get<std::int64_t>());
    const run::CheckpointRecord* last = last_to_complete(*r);
    REQUIRE(last != nullptr);
    const ordered_json& latest = checkpoints["latest"]["completed"];
    REQUIRE(!latest.is_null());
    if (!model::is_savepoint(last->type)) {
      CHECK(as_long(m.at("lastCompletedCheckpointId")) == latest["id"].get<std::int64_t>());
      CHECK(as_long(m.at("lastCheckpointDuration")) ==
            latest["end_to_end_duration"].get<std::int64_t>());
      CHECK(as_long(m.at("lastCheckpointSize")) == latest["checkpointed_size"].get<std::int64_t>());
      CHECK(as_long(m.at("lastCheckpointFullSize")) == latest["state_size"].get<std::int64_t>());
      CHECK(m.at("lastCheckpointExternalPath") == latest["external_path"].get<std::string>());
    }
    const ordered_json& restored = checkpoints["latest"]["restored"];
    CHECK(as_long(m.at("lastCheckpointRestoreTimestamp")) ==
          (restored.is_null() ? -1 : restored["restore_timestamp"].get<std::int64_t>()));
    // Flink 1.x still has the deprecated fullRestarts, equal to numRestarts.
    CHECK(m.at("fullRestarts") == m.at("numRestarts"));
  }
  // The seed scenario fails over and restores.
  const auto seed =
      as_map(run::rest_job_metrics(seed_run(), {"numRestarts", "lastCheckpointRestoreTimestamp"}));
  CHECK(as_long(seed.at("numRestarts")) == seed_run().restarts);
  CHECK(as_long(seed.at("lastCheckpointRestoreTimestamp")) > 0);
}

TEST_CASE("busy, back-pressured and idle time add up to 1000 ms per second for every subtask") {
  for (const run::RunResult* r : {&seed_run(), &back_pressured_run()}) {
    INFO(r->scenario_name);
    const run::MetricSnapshot snapshot = run::metric_values(*r);
    std::size_t subtasks = 0;
    for (const auto& v : r->vertices) subtasks += static_cast<std::size_t>(v.parallelism);
    CHECK(snapshot.subtasks.size() == subtasks);
    for (int v = 0; v < static_cast<int>(r->vertices.size()); ++v) {
      const auto m =
          as_map(run::rest_vertex_metrics(*r, v, ids_of(run::rest_vertex_metrics(*r, v, {}))));
      for (int s = 0; s < r->vertices[static_cast<std::size_t>(v)].parallelism; ++s) {
        const std::string p = std::to_string(s) + ".";
        const double total = std::stod(m.at(p + "busyTimeMsPerSecond")) +
                             std::stod(m.at(p + "backPressuredTimeMsPerSecond")) +
                             std::stod(m.at(p + "idleTimeMsPerSecond"));
        CHECK(total == Approx(1000.0));
      }
    }
  }
  // Stopped in the middle of the sink's stall: the sink is busy (blocked in its call), what feeds
  // it is back-pressured.
  const run::RunResult& r = back_pressured_run();
  const ordered_json source = run::rest_subtasks_metrics(
      r, 0, {"backPressuredTimeMsPerSecond", "busyTimeMsPerSecond"}, {"max"}, {});
  REQUIRE(source.size() == 2);
  CHECK(source[0]["max"].get<double>() == 1000.0);
  CHECK(!source[0].contains("min"));
  const int sink = static_cast<int>(r.vertices.size()) - 1;
  const ordered_json sink_busy =
      run::rest_subtasks_metrics(r, sink, {"busyTimeMsPerSecond"}, {"min"}, {});
  REQUIRE(sink_busy.size() == 1);
  CHECK(sink_busy[0]["min"].get<double>() == 1000.0);
}

TEST_CASE("the Prometheus text is well-formed exposition format with Flink's names and labels") {
  for (const run::RunResult* r : {&seed_run(), &back_pressured_run()}) {
    INFO(r->scenario_name);
    const std::string text = run::prometheus_text(*r);
    const Parsed p = parse_prometheus(text);
    for (const auto& e : p.errors) UNSCOPED_INFO(e);
    CHECK(p.errors.empty());
    CHECK(p.types.count("flink_jobmanager_job_lastCheckpointDuration"));
    CHECK(p.types.count("flink_taskmanager_job_task_busyTimeMsPerSecond"));
    CHECK(p.types.count("flink_taskmanager_job_task_Shuffle_Netty_Input_Buffers_inputQueueLength"));
    CHECK(p.types.count("flink_jobmanager_numRunningJobs"));
    CHECK(text.find("# HELP flink_jobmanager_job_lastCheckpointDuration lastCheckpointDuration "
                    "(scope: jobmanager_job)\n") != std::string::npos);
    for (const Sample& s : p.samples) {
      if (s.name.rfind("flink_taskmanager_job_task_", 0) == 0) {
        for (const char* label : {"job_id", "job_name", "task_id", "task_name", "subtask_index",
                                  "task_attempt_id", "task_attempt_num", "tm_id", "host"})
          CHECK(s.labels.count(label));
      } else if (s.name.rfind("flink_jobmanager_job_", 0) == 0) {
        CHECK(s.labels.size() == 3);
        CHECK(s.labels.at("job_id") == r->job_id);
      }
      // filterLabelValueCharacters: label values keep only [a-zA-Z0-9:_].
      for (const auto& [key, value] : s.labels)
        CHECK(std::regex_match(value, std::regex("[a-zA-Z0-9:_]*")));
    }
    CHECK(run::prometheus_text(*r) == text);  // deterministic
  }
}

TEST_CASE("REST and Prometheus show the same value for every metric") {
  for (const run::RunResult* r : {&seed_run(), &back_pressured_run()}) {
    INFO(r->scenario_name);
    const Parsed p = parse_prometheus(run::prometheus_text(*r));
    auto prom = [&](const std::string& name,
                    const std::map<std::string, std::string>& labels) -> std::optional<double> {
      for (const Sample& s : p.samples) {
        if (s.name != name) continue;
        bool match = true;
        for (const auto& [k, v] : labels) match = match && s.labels.count(k) && s.labels.at(k) == v;
        if (match) return s.value;
      }
      return std::nullopt;
    };
    // A String gauge is exported as 0 (AbstractPrometheusReporter.gaugeFrom).
    auto rest_number = [](const std::string& v) {
      try {
        return std::stod(v);
      } catch (const std::exception&) {
        return 0.0;
      }
    };
    const auto job = as_map(run::rest_job_metrics(*r, ids_of(run::rest_job_metrics(*r, {}))));
    REQUIRE(!job.empty());
    for (const auto& [id, value] : job) {
      INFO(id);
      const auto v = prom("flink_jobmanager_job_" + id, {});
      REQUIRE(v);
      CHECK(*v == rest_number(value));
    }
    const auto jm =
        as_map(run::rest_jobmanager_metrics(*r, ids_of(run::rest_jobmanager_metrics(*r, {}))));
    for (const auto& [id, value] : jm)
      CHECK(prom("flink_jobmanager_" + id, {}) == rest_number(value));
    for (int v = 0; v < static_cast<int>(r->vertices.size()); ++v) {
      const auto m =
          as_map(run::rest_vertex_metrics(*r, v, ids_of(run::rest_vertex_metrics(*r, v, {}))));
      for (const auto& [id, value] : m) {
        INFO(id);
        const std::size_t dot = id.find('.');
        std::string name = id.substr(dot + 1);
        std::replace(name.begin(), name.end(), '.', '_');
        const auto got = prom("flink_taskmanager_job_task_" + name,
                              {{"task_id", r->vertices[static_cast<std::size_t>(v)].id},
                               {"subtask_index", id.substr(0, dot)}});
        REQUIRE(got);
        if (std::isnan(*got)) {
          CHECK(value == "NaN");
        } else {
          CHECK(*got == rest_number(value));
        }
      }
    }
  }
}

TEST_CASE("a snapshot taken mid-run shows its in-progress checkpoint") {
  // stalled-sink stops at 14 min: the checkpoint triggered at 12 min waits behind the stalled
  // sink (it expires only at 22 min).
  const run::RunResult r = tests::run_file_until("scenarios/examples/stalled-sink.yaml", core::minutes(14));
  const ordered_json checkpoints = run::rest_checkpoints(r);
  std::int64_t in_history = 0;
  for (const auto& c : checkpoints["history"]) in_history += c["status"] == "IN_PROGRESS";
  const auto m = as_map(run::rest_job_metrics(
      r, {"numberOfInProgressCheckpoints", "uptime", "runningTime", "downtime"}));
  CHECK(as_long(m.at("numberOfInProgressCheckpoints")) == 1);
  CHECK(as_long(m.at("numberOfInProgressCheckpoints")) ==
        checkpoints["counts"]["in_progress"].get<std::int64_t>());
  CHECK(in_history == 1);
  CHECK(as_long(m.at("downtime")) == 0);
  CHECK(as_long(m.at("uptime")) > 0);
  CHECK(m.at("uptime") == m.at("runningTime"));  // running since its first RUNNING
  const Parsed p = parse_prometheus(run::prometheus_text(r));
  CHECK(p.errors.empty());
  for (const Sample& s : p.samples) {
    if (s.name == "flink_jobmanager_job_numberOfInProgressCheckpoints") CHECK(s.value == 1.0);
  }
}

TEST_CASE("task metrics follow TaskIOMetricGroup on a hand-built run") {
  const run::RunResult r = sampled_run();
  const auto m = as_map(run::rest_vertex_metrics(r, 1, ids_of(run::rest_vertex_metrics(r, 1, {}))));
  CHECK(m.at("0.idleTimeMsPerSecond") == "500");
  CHECK(m.at("0.backPressuredTimeMsPerSecond") == "250");
  CHECK(m.at("0.busyTimeMsPerSecond") == "250.0");
  CHECK(m.at("1.busyTimeMsPerSecond") == "1000.0");
  CHECK(m.at("0.numRecordsIn") == "200");             // counters: over the attempt
  CHECK(m.at("1.numRecordsInPerSecond") == "200.0");  // meters: the latest period
  CHECK(m.at("0.accumulateIdleTimeMs") == "1000");
  CHECK(m.at("0.accumulateBusyTimeMs") == "500.0");
  CHECK(m.at("0.buffers.inputQueueLength") == "3");
  CHECK(m.at("0.Shuffle.Netty.Output.Buffers.outputQueueLength") == "5");
  // Checkpoint 4, the latest it acknowledged: 640 ms start delay, 5 ms alignment (unaligned),
  // in nanoseconds.
  CHECK(m.at("0.checkpointStartDelayNanos") == "640000000");
  CHECK(m.at("0.checkpointAlignmentTime") == "5000000");
  // A source has no network input: no task-level records in, no CheckpointBarrierHandler (only
  // the source task's own start delay gauge).
  const auto source =
      as_map(run::rest_vertex_metrics(r, 0, ids_of(run::rest_vertex_metrics(r, 0, {}))));
  CHECK(source.at("0.numRecordsIn") == "0");
  CHECK(source.count("0.checkpointAlignmentTime") == 0);
  CHECK(source.at("0.checkpointStartDelayNanos") == "640000000");
  CHECK(source.at("1.numRecordsOut") == "40");

  const auto job = as_map(run::rest_job_metrics(r, ids_of(run::rest_job_metrics(r, {}))));
  // The savepoint (2) completed before checkpoint 4: 4 is the last completed.
  CHECK(job.at("lastCompletedCheckpointId") == "4");
  CHECK(job.at("lastCheckpointDuration") == "1834");
  CHECK(job.at("lastCheckpointExternalPath") ==
        std::string("file:/data/ckpt/") + tests::kSampleJobId + "/chk-4");
  CHECK(job.at("numRestarts") == "1");
  CHECK(job.count("lastCheckpointCompletedTimestamp") == 0);  // 2.0 on
}

TEST_CASE("metric lists: ids without get, string values with get, unknown ids left out") {
  const run::RunResult r = sampled_run();
  const ordered_json listing = run::rest_vertex_metrics(r, 1, {});
  REQUIRE(!listing.empty());
  for (const auto& m : listing) {
    CHECK(m.size() == 1);
    CHECK(std::regex_match(m["id"].get<std::string>(), std::regex("[01]\\..+")));
  }
  const ordered_json got = run::rest_job_metrics(r, {"numRestarts", "noSuchMetric", "uptime"});
  REQUIRE(got.size() == 2);
  for (const auto& m : got) CHECK(m["value"].is_string());
  CHECK(run::rest_job_metrics(r, {"noSuchMetric"}).empty());
  CHECK(run::rest_vertex_metrics(r, 7, {}).empty());
  const auto jm = as_map(run::rest_jobmanager_metrics(
      r, {"taskSlotsTotal", "taskSlotsAvailable", "numRegisteredTaskManagers", "numRunningJobs"}));
  CHECK(jm.at("taskSlotsTotal") == "8");
  CHECK(jm.at("taskSlotsAvailable") == "6");
  CHECK(jm.at("numRegisteredTaskManagers") == "2");
  CHECK(jm.at("numRunningJobs") == "1");
}

TEST_CASE("subtask aggregation follows DoubleAccumulator, with skew from Flink 1.20") {
  run::RunResult r = sampled_run();
  const ordered_json all = run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond"}, {}, {});
  REQUIRE(all.size() == 1);
  CHECK(all[0]["id"] == "idleTimeMsPerSecond");
  CHECK(all[0]["min"].get<double>() == 0.0);
  CHECK(all[0]["max"].get<double>() == 500.0);
  CHECK(all[0]["avg"].get<double>() == 250.0);
  CHECK(all[0]["sum"].get<double>() == 500.0);
  CHECK(!all[0].contains("skew"));  // 1.17: no DoubleDataSkew yet
  CHECK_THROWS_AS(run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond"}, {"skew"}, {}),
                  std::invalid_argument);
  CHECK_THROWS_AS(run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond"}, {"median"}, {}),
                  std::invalid_argument);

  r.flink_version = model::FlinkVersion::v1_20;
  const ordered_json skewed = run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond"}, {}, {});
  CHECK(skewed[0]["skew"].get<double>() == 100.0);  // |0-250| and |500-250| over 250, capped
  const ordered_json one =
      run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond"}, {"SUM", "skew"}, {"1"});
  REQUIRE(one.size() == 1);
  CHECK(one[0].size() == 3);
  CHECK(one[0]["sum"].get<double>() == 0.0);
  CHECK(one[0]["skew"].get<double>() == 0.0);
  // A range, and a value that is not a number (skipped).
  const ordered_json ranged =
      run::rest_subtasks_metrics(r, 1, {"numRecordsIn"}, {"sum"}, {"0-1", "x"});
  CHECK(ranged[0]["sum"].get<double>() == 600.0);
  // A requested metric no subtask has: the whole answer is empty.
  CHECK(run::rest_subtasks_metrics(r, 1, {"idleTimeMsPerSecond", "nope"}, {}, {}).empty());
  // Without get: the metric names, without the subtask prefix.
  for (const auto& m : run::rest_subtasks_metrics(r, 1, {}, {}, {})) {
    CHECK(m.size() == 1);
    CHECK(m["id"].get<std::string>().find("0.") != 0);
  }
}

TEST_CASE("metrics follow the Flink version: 2.0 drops fullRestarts and the buffers group") {
  run::RunResult r = sampled_run();
  r.flink_version = model::FlinkVersion::v2_0;
  const auto job = as_map(run::rest_job_metrics(r, ids_of(run::rest_job_metrics(r, {}))));
  CHECK(job.count("fullRestarts") == 0);
  CHECK(job.at("lastCheckpointCompletedTimestamp") == std::to_string(r.start_epoch_ms + 781834));
  const auto task =
      as_map(run::rest_vertex_metrics(r, 1, ids_of(run::rest_vertex_metrics(r, 1, {}))));
  CHECK(task.count("0.buffers.inputQueueLength") == 0);
  CHECK(task.count("0.Shuffle.Netty.Input.Buffers.inputQueueLength") == 1);
}

TEST_CASE("a globally terminal job has no job or task metrics, label values are filtered") {
  run::RunResult r = sampled_run();
  r.job_name = "orders \"eu\\west\"\nsync";
  r.vertices[0].name = "Source: orders -> Map";
  const Parsed p = parse_prometheus(run::prometheus_text(r));
  CHECK(p.errors.empty());
  bool named = false;
  for (const Sample& s : p.samples) {
    if (s.labels.count("job_name")) CHECK(s.labels.at("job_name") == "orders__eu_west__sync");
    if (s.labels.count("task_name") && s.labels.at("task_name") == "Source:_orders____Map")
      named = true;
  }
  CHECK(named);  // ':' is one of the characters Flink keeps

  r.final_status = model::JobStatus::canceled;
  CHECK(run::rest_job_metrics(r, {}).empty());
  CHECK(run::rest_vertex_metrics(r, 0, {}).empty());
  const std::string text = run::prometheus_text(r);
  CHECK(text.find("flink_jobmanager_job_") == std::string::npos);
  CHECK(text.find("flink_taskmanager_") == std::string::npos);
  CHECK(text.find("flink_jobmanager_numRunningJobs{host=\"localhost\",} 0.0\n") !=
        std::string::npos);
}

TEST_CASE("metric values are stringified as Java's Double.toString") {
  CHECK(run::java_double_string(930.0) == "930.0");
  CHECK(run::java_double_string(0.5) == "0.5");
  CHECK(run::java_double_string(1e7) == "1.0E7");
  CHECK(run::java_double_string(12345678.9) == "1.23456789E7");
  CHECK(run::java_double_string(9999999.0) == "9999999.0");
  CHECK(run::java_double_string(0.001) == "0.001");
  CHECK(run::java_double_string(0.0001) == "1.0E-4");
  CHECK(run::java_double_string(-1.0) == "-1.0");
  CHECK(run::java_double_string(0.0) == "0.0");
  CHECK(run::java_double_string(std::nan("")) == "NaN");
  CHECK(run::java_double_string(HUGE_VAL) == "Infinity");
}
