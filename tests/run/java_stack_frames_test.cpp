// The stack frames under the exceptions ckptsim logs (sim/run/writers/java_stack_frames.*):
// the seed incident's frames byte for byte, and per release the lines read from Flink's source
// at the refs docs/flink-log.md names.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/run/writers/java_stack_frames.hpp"
#include "sim/run/writers/rest_job.hpp"
#include "sim/run/writers/writers.hpp"
#include "tests/support/run_file.hpp"

namespace {

using namespace ckptsim;
using model::FlinkVersion;
using run::ThrowSite;

// The lines of `log` after the first line containing `header`, up to the next timestamped line.
std::vector<std::string> throwable_after(const std::string& log, const std::string& header) {
  std::vector<std::string> lines;
  const std::size_t at = log.find(header);
  if (at == std::string::npos) return lines;
  std::size_t pos = log.find('\n', at) + 1;
  while (pos < log.size() && !(log[pos] >= '0' && log[pos] <= '9')) {
    const std::size_t end = log.find('\n', pos);
    lines.push_back(log.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

// seeds/000_e3398b10b3943402.txt, lines 28-36 and 39-53 (Flink 1.17.2 on JDK 1.8.0_351).
const std::vector<std::string> kSeedExpiredTrace = {
    "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before "
    "completing.",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
    "CheckpointCoordinator.java:2216) [flink-dist-1.17.2.jar:1.17.2]",
    "\tat java.util.concurrent.Executors$RunnableAdapter.call(Executors.java:511) [?:1.8.0_351]",
    "\tat java.util.concurrent.FutureTask.run(FutureTask.java:266) [?:1.8.0_351]",
    "\tat java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.access$201("
    "ScheduledThreadPoolExecutor.java:180) [?:1.8.0_351]",
    "\tat java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run("
    "ScheduledThreadPoolExecutor.java:293) [?:1.8.0_351]",
    "\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149) "
    "[?:1.8.0_351]",
    "\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624) "
    "[?:1.8.0_351]",
    "\tat java.lang.Thread.run(Thread.java:750) [?:1.8.0_351]",
};

const std::vector<std::string> kSeedThresholdTrace = {
    "org.apache.flink.util.FlinkRuntimeException: Exceeded checkpoint tolerable failure "
    "threshold. The latest checkpoint failed due to Checkpoint expired before completing., view "
    "the Checkpoint History tab or the Job Manager log to find out why continuous checkpoints "
    "failed.",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointFailureManager.checkFailureAgainstCounter("
    "CheckpointFailureManager.java:212) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointFailureManager."
    "handleJobLevelCheckpointException(CheckpointFailureManager.java:169) "
    "~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointFailureManager.handleCheckpointException("
    "CheckpointFailureManager.java:122) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.abortPendingCheckpoint("
    "CheckpointCoordinator.java:2155) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.abortPendingCheckpoint("
    "CheckpointCoordinator.java:2134) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator.access$700("
    "CheckpointCoordinator.java:101) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
    "CheckpointCoordinator.java:2216) ~[flink-dist-1.17.2.jar:1.17.2]",
    "\tat java.util.concurrent.Executors$RunnableAdapter.call(Executors.java:511) ~[?:1.8.0_351]",
    "\tat java.util.concurrent.FutureTask.run(FutureTask.java:266) ~[?:1.8.0_351]",
    "\tat java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.access$201("
    "ScheduledThreadPoolExecutor.java:180) ~[?:1.8.0_351]",
    "\tat java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run("
    "ScheduledThreadPoolExecutor.java:293) ~[?:1.8.0_351]",
    "\tat java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1149) "
    "~[?:1.8.0_351]",
    "\tat java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:624) "
    "~[?:1.8.0_351]",
    "\tat java.lang.Thread.run(Thread.java:750) ~[?:1.8.0_351]",
};

// The checkpoint timer thread's frames under the canceller on JDK 8 (1.8.0_351), as frame_keys.
const std::vector<std::string> kJdk8TimerKeys = {
    "Executors$RunnableAdapter.call:511",
    "FutureTask.run:266",
    "ScheduledThreadPoolExecutor$ScheduledFutureTask.access$201:180",
    "ScheduledThreadPoolExecutor$ScheduledFutureTask.run:293",
    "ThreadPoolExecutor.runWorker:1149",
    "ThreadPoolExecutor$Worker.run:624",
    "Thread.run:750",
};

std::vector<std::string> with_jdk8_timer(std::vector<std::string> keys) {
  keys.insert(keys.end(), kJdk8TimerKeys.begin(), kJdk8TimerKeys.end());
  return keys;
}

// "<class>.<method>:<line>" of each frame, for the per-release tables.
std::vector<std::string> frame_keys(ThrowSite site, FlinkVersion v) {
  std::vector<std::string> keys;
  for (const run::JavaFrame& f : run::java_stack_frames(site, v))
    keys.push_back(std::string(f.declaring_class.substr(f.declaring_class.rfind('.') + 1)) + "." +
                   std::string(f.method) + ":" + std::to_string(f.line));
  return keys;
}

}  // namespace

TEST_CASE(
    "log4j2 extended throwable: the seed scenario's expiry WARN and global failure carry "
    "the seed log's frames byte for byte (Flink 1.17.2, JDK 8; exact on the canceller's "
    "thread, '~' on the JobMaster's)",
    "[seed]") {
  const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  const std::string log = run::format_flink_log(r);
  CHECK(throwable_after(log, "Failed to trigger or complete checkpoint 3 for job ") ==
        kSeedExpiredTrace);
  CHECK(throwable_after(log, "Trying to recover from a global failure.") == kSeedThresholdTrace);
}

TEST_CASE(
    "ExceptionUtils.stringifyException: the REST root exception of the seed scenario is "
    "the FlinkRuntimeException with its frames in printStackTrace's form") {
  const run::RunResult r = tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml");
  const nlohmann::ordered_json body = run::rest_job_exceptions(r);
  std::string expected;
  for (std::string line : kSeedThresholdTrace) {
    // printStackTrace has no log4j2 "[jar:version]" suffix.
    const std::size_t suffix = line.rfind(") ");
    if (line.rfind("\tat ", 0) == 0 && suffix != std::string::npos) line.resize(suffix + 1);
    expected += line + "\n";
  }
  CHECK(body["root-exception"].get<std::string>() == expected);
  CHECK(body["exceptionHistory"]["entries"][0]["stacktrace"].get<std::string>() == expected);
}

TEST_CASE(
    "CheckpointCoordinator / CheckpointFailureManager frames on release-1.15.1: "
    "access$600, checkFailureAgainstCounter's errorHandler.accept at 206") {
  CHECK(frame_keys(ThrowSite::failure_threshold_from_canceller, FlinkVersion::v1_15) ==
        with_jdk8_timer({
            "CheckpointFailureManager.checkFailureAgainstCounter:206",
            "CheckpointFailureManager.handleJobLevelCheckpointException:169",
            "CheckpointFailureManager.handleCheckpointException:122",
            "CheckpointCoordinator.abortPendingCheckpoint:2078",
            "CheckpointCoordinator.abortPendingCheckpoint:2057",
            "CheckpointCoordinator.access$600:97",
            "CheckpointCoordinator$CheckpointCanceller.run:2139",
        }));
  const std::vector<std::string> lines =
      run::log4j_frame_lines(ThrowSite::checkpoint_canceller, FlinkVersion::v1_15, true);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] ==
        "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
        "CheckpointCoordinator.java:2139) [flink-dist-1.15.1.jar:1.15.1]");
}

TEST_CASE(
    "CheckpointCoordinator frames on release-1.20.0: the periodic trigger's new private "
    "members make the canceller's accessor access$1200") {
  CHECK(frame_keys(ThrowSite::failure_threshold_from_canceller, FlinkVersion::v1_20) ==
        with_jdk8_timer({
            "CheckpointFailureManager.checkFailureAgainstCounter:212",
            "CheckpointFailureManager.handleJobLevelCheckpointException:169",
            "CheckpointFailureManager.handleCheckpointException:122",
            "CheckpointCoordinator.abortPendingCheckpoint:2281",
            "CheckpointCoordinator.abortPendingCheckpoint:2260",
            "CheckpointCoordinator.access$1200:102",
            "CheckpointCoordinator$CheckpointCanceller.run:2346",
        }));
}

TEST_CASE(
    "CheckpointCoordinator frames on release-2.0 (Java 17: no synthetic accessor; JDK 17 "
    "frames print ~[?:?], and java.base/ in printStackTrace)") {
  CHECK(frame_keys(ThrowSite::failure_threshold_from_canceller, FlinkVersion::v2_0) ==
        std::vector<std::string>{
            "CheckpointFailureManager.checkFailureAgainstCounter:212",
            "CheckpointFailureManager.handleJobLevelCheckpointException:169",
            "CheckpointFailureManager.handleCheckpointException:122",
            "CheckpointCoordinator.abortPendingCheckpoint:2275",
            "CheckpointCoordinator.abortPendingCheckpoint:2254",
            "CheckpointCoordinator$CheckpointCanceller.run:2340",
            "Executors$RunnableAdapter.call:539",
            "FutureTask.run:264",
            "ScheduledThreadPoolExecutor$ScheduledFutureTask.run:304",
            "ThreadPoolExecutor.runWorker:1136",
            "ThreadPoolExecutor$Worker.run:635",
            "Thread.run:840",
        });
  const std::vector<std::string> log4j = run::log4j_frame_lines(
      ThrowSite::failure_threshold_from_canceller, FlinkVersion::v2_0, false);
  REQUIRE(log4j.size() == 12);
  CHECK(log4j[5] ==
        "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
        "CheckpointCoordinator.java:2340) ~[flink-dist-2.0.0.jar:2.0.0]");
  CHECK(log4j[11] == "\tat java.lang.Thread.run(Thread.java:840) ~[?:?]");
  const std::vector<std::string> printed =
      run::print_stack_trace_frame_lines(ThrowSite::checkpoint_canceller, FlinkVersion::v2_0);
  REQUIRE(printed.size() == 7);
  CHECK(printed[0] ==
        "\tat org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller.run("
        "CheckpointCoordinator.java:2340)");
  CHECK(printed[1] ==
        "\tat java.base/java.util.concurrent.Executors$RunnableAdapter.call(Executors.java:539)");
}

TEST_CASE("exceptions whose frames are not derived from Flink's source print none") {
  for (const FlinkVersion v : model::kFlinkVersions) {
    CHECK(run::java_stack_frames(ThrowSite::none, v).empty());
    CHECK(run::log4j_frame_lines(ThrowSite::none, v, false).empty());
    CHECK(run::print_stack_trace_frame_lines(ThrowSite::none, v).empty());
  }
}

TEST_CASE("the seed scenario under Flink 2.0 logs release-2.0's frames under the global failure") {
  const run::RunResult r =
      tests::run_file("scenarios/seed/doris-cdc-table-swap.yaml", {"flink.version=2.0"});
  const std::vector<std::string> trace =
      throwable_after(run::format_flink_log(r), "Trying to recover from a global failure.");
  REQUIRE(trace.size() == 13);
  CHECK(trace[1] ==
        "\tat org.apache.flink.runtime.checkpoint.CheckpointFailureManager."
        "checkFailureAgainstCounter(CheckpointFailureManager.java:212) "
        "~[flink-dist-2.0.0.jar:2.0.0]");
  CHECK(trace[12] == "\tat java.lang.Thread.run(Thread.java:840) ~[?:?]");
}
