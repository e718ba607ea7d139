// The frames of the exceptions ckptsim logs, as data: one row of source lines per Flink release
// (read at the ref named in the row) and the timer thread's frames per JDK. docs/flink-log.md
// lists them.
#include "sim/run/writers/java_stack_frames.hpp"

#include <array>

#include <fmt/format.h>

namespace ckptsim::run {

namespace {

enum class Jdk { jdk8, jdk17 };

// The JDK each release runs on in ckptsim: Java 8 for 1.15 to 1.20 (the seed incident's 1.17.2
// ran on 1.8.0_351; Flink 1.x supports 8 and 11), Java 17 for 2.0 and 2.1 (Flink 2.0 dropped
// Java 8, and its official image, flink:2.0, is eclipse-temurin:17-jre).
//
// Where a line of CheckpointCoordinator or CheckpointFailureManager comes from: javac gives a
// call the line its statement starts on (the seed's `abortPendingCheckpoint(` at 2216 is also
// where `new CheckpointException(CHECKPOINT_EXPIRED)`, two lines below, was created). Flink 1.x is
// compiled for Java 8, so the canceller, a nested class, calls the private
// abortPendingCheckpoint through javac's synthetic accessor, access$<n>00, n the order in which
// the class's private members are first reached from another class (constructors included),
// at the line of the class declaration; 2.0+ is compiled for Java 17, whose nestmates need none.
struct ReleaseLines {
  model::FlinkVersion version;
  const char* ref;    // the Flink git ref the lines were read at
  int canceller_run;  // CheckpointCanceller.run: abortPendingCheckpoint(...)
  int abort_pending;  // abortPendingCheckpoint(pc, ex): abortPendingCheckpoint(pc, ex, null)
  int abort_pending_attempt;  // abortPendingCheckpoint(pc, ex, attempt): handleCheckpointException
  const char* accessor;       // javac's accessor of abortPendingCheckpoint ("" without one)
  int class_line;             // `public class CheckpointCoordinator {`
  int check_against_counter;  // checkFailureAgainstCounter: new FlinkRuntimeException(...)
  int handle_job_level;       // handleJobLevelCheckpointException: checkFailureAgainstCounter
  int handle_exception;       // handleCheckpointException: handleJobLevelCheckpointException
  Jdk jdk;
};

// 1.17: the release-1.17 branch, whose two files have not changed since 1.17.0 (the lines are
// the seed's, 1.17.2); 1.18 and 1.19 likewise on release-1.18 / release-1.19 (after 1.19.1);
// 2.0 on release-2.0-1 and release-2.0.2-rc4, 2.1 on release-2.1.2-rc2 (the same lines).
constexpr std::array<ReleaseLines, 8> kReleases{{
    {model::FlinkVersion::v1_15, "release-1.15.1", 2139, 2057, 2078, "access$600", 97, 206, 169,
     122, Jdk::jdk8},
    {model::FlinkVersion::v1_16, "release-1.16.3-rc1", 2172, 2090, 2111, "access$700", 98, 206, 169,
     122, Jdk::jdk8},
    {model::FlinkVersion::v1_17, "release-1.17", 2216, 2134, 2155, "access$700", 101, 212, 169, 122,
     Jdk::jdk8},
    {model::FlinkVersion::v1_18, "release-1.18", 2212, 2130, 2151, "access$700", 101, 212, 169, 122,
     Jdk::jdk8},
    {model::FlinkVersion::v1_19, "release-1.19", 2333, 2247, 2268, "access$1200", 101, 212, 169,
     122, Jdk::jdk8},
    {model::FlinkVersion::v1_20, "release-1.20.0", 2346, 2260, 2281, "access$1200", 102, 212, 169,
     122, Jdk::jdk8},
    {model::FlinkVersion::v2_0, "release-2.0.2-rc4", 2340, 2254, 2275, "", 103, 212, 169, 122,
     Jdk::jdk17},
    {model::FlinkVersion::v2_1, "release-2.1.2-rc2", 2340, 2254, 2275, "", 103, 212, 169, 122,
     Jdk::jdk17},
}};

// The CheckpointCoordinator's timer thread (Executors.newSingleThreadScheduledExecutor), under
// the canceller's run(): JDK 8u351 as the seed prints it; JDK 17 from update 8 on (Thread.java
// :840), as public logs of JDK 17 show it.
constexpr std::array<JavaFrame, 7> kTimerJdk8{{
    {"java.util.concurrent.Executors$RunnableAdapter", "call", "Executors.java", 511, true},
    {"java.util.concurrent.FutureTask", "run", "FutureTask.java", 266, true},
    {"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask", "access$201",
     "ScheduledThreadPoolExecutor.java", 180, true},
    {"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask", "run",
     "ScheduledThreadPoolExecutor.java", 293, true},
    {"java.util.concurrent.ThreadPoolExecutor", "runWorker", "ThreadPoolExecutor.java", 1149, true},
    {"java.util.concurrent.ThreadPoolExecutor$Worker", "run", "ThreadPoolExecutor.java", 624, true},
    {"java.lang.Thread", "run", "Thread.java", 750, true},
}};
constexpr std::array<JavaFrame, 6> kTimerJdk17{{
    {"java.util.concurrent.Executors$RunnableAdapter", "call", "Executors.java", 539, true},
    {"java.util.concurrent.FutureTask", "run", "FutureTask.java", 264, true},
    {"java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask", "run",
     "ScheduledThreadPoolExecutor.java", 304, true},
    {"java.util.concurrent.ThreadPoolExecutor", "runWorker", "ThreadPoolExecutor.java", 1136, true},
    {"java.util.concurrent.ThreadPoolExecutor$Worker", "run", "ThreadPoolExecutor.java", 635, true},
    {"java.lang.Thread", "run", "Thread.java", 840, true},
}};

constexpr std::string_view kCoordinator =
    "org.apache.flink.runtime.checkpoint.CheckpointCoordinator";
constexpr std::string_view kCanceller =
    "org.apache.flink.runtime.checkpoint.CheckpointCoordinator$CheckpointCanceller";
constexpr std::string_view kFailureManager =
    "org.apache.flink.runtime.checkpoint.CheckpointFailureManager";
constexpr std::string_view kCoordinatorFile = "CheckpointCoordinator.java";
constexpr std::string_view kFailureManagerFile = "CheckpointFailureManager.java";

const ReleaseLines& release_lines(model::FlinkVersion version) {
  for (const ReleaseLines& r : kReleases)
    if (r.version == version) return r;
  return kReleases.back();
}

}  // namespace

std::vector<JavaFrame> java_stack_frames(ThrowSite site, model::FlinkVersion version) {
  const ReleaseLines& r = release_lines(version);
  std::vector<JavaFrame> frames;
  if (site == ThrowSite::failure_threshold_from_canceller) {
    frames.push_back({kFailureManager, "checkFailureAgainstCounter", kFailureManagerFile,
                      r.check_against_counter});
    frames.push_back({kFailureManager, "handleJobLevelCheckpointException", kFailureManagerFile,
                      r.handle_job_level});
    frames.push_back(
        {kFailureManager, "handleCheckpointException", kFailureManagerFile, r.handle_exception});
    frames.push_back(
        {kCoordinator, "abortPendingCheckpoint", kCoordinatorFile, r.abort_pending_attempt});
    frames.push_back({kCoordinator, "abortPendingCheckpoint", kCoordinatorFile, r.abort_pending});
    if (*r.accessor != '\0')
      frames.push_back({kCoordinator, r.accessor, kCoordinatorFile, r.class_line});
  }
  if (site == ThrowSite::checkpoint_canceller ||
      site == ThrowSite::failure_threshold_from_canceller) {
    frames.push_back({kCanceller, "run", kCoordinatorFile, r.canceller_run});
    if (r.jdk == Jdk::jdk8)
      frames.insert(frames.end(), kTimerJdk8.begin(), kTimerJdk8.end());
    else
      frames.insert(frames.end(), kTimerJdk17.begin(), kTimerJdk17.end());
  }
  return frames;
}

std::vector<std::string> log4j_frame_lines(ThrowSite site, model::FlinkVersion version,
                                           bool logged_on_creating_thread) {
  const char* release = model::flink_release(version);
  const bool jdk8 = release_lines(version).jdk == Jdk::jdk8;
  // ExtendedClassInfo: the jar's name and Implementation-Version; a JDK class has no jar
  // location ("?") and JDK 9+'s modules report no version ("?").
  const std::string flink_jar = fmt::format("flink-dist-{}.jar:{}", release, release);
  const std::string jdk_jar = jdk8 ? "?:1.8.0_351" : "?:?";
  const char* mark = logged_on_creating_thread ? "" : "~";
  std::vector<std::string> lines;
  for (const JavaFrame& f : java_stack_frames(site, version))
    lines.push_back(fmt::format("\tat {}.{}({}:{}) {}[{}]", f.declaring_class, f.method, f.file,
                                f.line, mark, f.jdk ? jdk_jar : flink_jar));
  return lines;
}

std::vector<std::string> print_stack_trace_frame_lines(ThrowSite site,
                                                       model::FlinkVersion version) {
  const bool jdk8 = release_lines(version).jdk == Jdk::jdk8;
  std::vector<std::string> lines;
  for (const JavaFrame& f : java_stack_frames(site, version))
    lines.push_back(fmt::format("\tat {}{}.{}({}:{})", f.jdk && !jdk8 ? "java.base/" : "",
                                f.declaring_class, f.method, f.file, f.line));
  return lines;
}

}  // namespace ckptsim::run
