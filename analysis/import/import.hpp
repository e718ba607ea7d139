// `ckptsim import`: real Flink JobManager logs and REST JSON into the RunResult a simulation
// produces, so that the story, the summary, the REST files and the report work on real jobs.
// Each file's kind is recognised from its content; what could not be read is reported, never
// guessed silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/run/result.hpp"

namespace ckptsim::analysis {

struct ImportReport {
  std::vector<std::string> files;     // one line per file: what it was and what was read from it
  std::vector<std::string> problems;  // "file:line: what could not be read" (at most 50 kept)
  int problems_not_shown = 0;
  std::string flink_version;  // as the log states it ("1.17.1"), or as guessed ("1.15+")
};

// A checkpoint trigger that failed before the checkpoint got an id (a plan that found a task
// not running, a pre-flight check): Flink counts it as triggered and failed, but it has no
// history entry, so the RunResult holds it only in its counts. Read from a log only.
struct TriggerFailure {
  core::SimTime time = 0;
  std::optional<model::CheckpointFailureReason> reason;  // when the line says it
};

struct Imported {
  run::RunResult result;
  ImportReport report;
  std::vector<TriggerFailure> trigger_failures;  // in time order
};

// A JobManager log's text into a RunResult (`name` names it in the report).
Imported import_log(std::string_view text, const std::string& name);

// Texts (name, content) as import_files reads files: a JSON body or a log, by content.
std::optional<Imported> import_texts(std::vector<std::pair<std::string, std::string>> texts,
                                     std::string& error);

// Files (logs and REST JSON, in any order) into one RunResult; nullopt and `error` set when a
// file cannot be read or holds nothing ckptsim recognises. At most `max_bytes` per file.
std::optional<Imported> import_files(const std::vector<std::string>& paths, std::string& error,
                                     std::int64_t max_bytes = 64ll << 20);

// When the job failed over: its RUNNING -> RESTARTING/FAILING changes, and DefaultScheduler's
// "Trying to recover from a global failure." where no status line goes with it (an excerpt),
// in time order.
std::vector<core::SimTime> failover_times(const run::RunResult& result);

}  // namespace ckptsim::analysis
