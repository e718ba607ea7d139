// `ckptsim sweep`, `compare` and `merge` end to end: the same bytes with 1 and 2 threads, shards
// run as separate processes and merged equal the unsharded sweep, resume, failing points.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "tests/cli/cli_support.hpp"

namespace {

using namespace ckptsim::tests;

const std::string kScenario = std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/examples/stalled-sink.yaml";
const std::string kVary =
    " --vary execution.checkpointing.timeout=5min,10min,30min"
    " --vary execution.checkpointing.tolerable-failed-checkpoints=0,2 --seeds 4";

// Every file under `dir`, by relative path.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), dir).generic_string()] = read_file(entry.path());
  return files;
}

}  // namespace

TEST_CASE("a sweep writes the same bytes with 1 thread and with 2") {
  TempDir dir("sweep-threads");
  const Output one = run_ckptsim(dir.path(), "sweep '" + kScenario + "'" + kVary +
                                                 " --threads 1 --out one --objective failovers");
  const Output two = run_ckptsim(dir.path(), "sweep '" + kScenario + "'" + kVary +
                                                 " --threads 2 --out two --objective failovers");
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  const auto a = files_of(dir.path() / "one");
  const auto b = files_of(dir.path() / "two");
  CHECK(a.size() == 6 * 4 + 3);  // a point file per run, then the three comparison files
  CHECK(a == b);
  CHECK(a.at("comparison.csv").rfind("execution.checkpointing.timeout,execution.checkpointing."
                                     "tolerable-failed-checkpoints,runs,errors,",
                                     0) == 0);
}

TEST_CASE("sweep shards run as separate processes and merged equal the unsharded sweep") {
  TempDir dir("sweep-shards");
  REQUIRE(run_ckptsim(dir.path(), "sweep '" + kScenario + "'" + kVary + " --out whole").exit_code ==
          0);
  for (int shard = 0; shard < 3; ++shard)
    REQUIRE(run_ckptsim(dir.path(), "sweep '" + kScenario + "'" + kVary + " --shard " +
                                        std::to_string(shard) + "/3 --out shard" +
                                        std::to_string(shard))
                .exit_code == 0);
  CHECK(files_of(dir.path() / "shard1").size() == 8 + 3);
  const Output merged = run_ckptsim(dir.path(), "merge shard0 shard1 shard2 --out merged");
  INFO(merged.out);
  REQUIRE(merged.exit_code == 0);
  CHECK(files_of(dir.path() / "merged") == files_of(dir.path() / "whole"));
}

TEST_CASE("a sweep run again skips the points it has and gives the same comparison") {
  TempDir dir("sweep-resume");
  const std::string command = "sweep '" + kScenario + "'" + kVary + " --out out";
  REQUIRE(run_ckptsim(dir.path(), command).exit_code == 0);
  const auto before = files_of(dir.path() / "out");
  // An interrupted sweep: some point files are missing.
  int removed = 0;
  for (const auto& [name, text] : before)
    if (name.rfind("points/", 0) == 0 && removed < 5) {
      fs::remove(dir.path() / "out" / name);
      ++removed;
    }
  const Output again = run_ckptsim(dir.path(), command);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("19 of 24 points already done in out, skipped") != std::string::npos);
  CHECK(files_of(dir.path() / "out") == before);
}

TEST_CASE("a sweep point that does not load is reported, the others run, and the sweep exits 3") {
  TempDir dir("sweep-bad-point");
  const Output output = run_ckptsim(
      dir.path(), "sweep '" + kScenario +
                      "' --vary execution.checkpointing.timeout=10min,1ms --seeds 2 --out out");
  INFO(output.out);
  CHECK(output.exit_code == 3);
  CHECK(output.out.find("execution.checkpointing.timeout=1ms: 2 point(s) did not load: --set:1:33: "
                        "error: the checkpoint timeout must be at least 10 ms, got '1ms'\n") !=
        std::string::npos);
  CHECK(output.out.find("2 of 4 points failed") != std::string::npos);
  const auto files = files_of(dir.path() / "out");
  CHECK(files.at("comparison.csv").find("\n1ms,0,2,") != std::string::npos);
}

TEST_CASE("ckptsim compare puts two scenarios side by side") {
  TempDir dir("compare");
  const std::string examples = std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/examples/";
  const Output output =
      run_ckptsim(dir.path(), "compare '" + examples + "tolerable-failures.yaml' '" + examples +
                                  "tolerable-failures-zero.yaml' --seeds 10 --objective failovers");
  INFO(output.out);
  REQUIRE(output.exit_code == 0);
  CHECK(output.out.find("*  " + examples + "tolerable-failures.yaml ") != std::string::npos);
  CHECK(output.out.find("best (*): scenario=" + examples + "tolerable-failures.yaml (lowest "
                        "failovers)") != std::string::npos);
  // With 3 seeds, 0 failovers against 0.67 ± 1.43 is within noise: a tie, not a best.
  const Output few =
      run_ckptsim(dir.path(), "compare '" + examples + "tolerable-failures.yaml' '" + examples +
                                  "tolerable-failures-zero.yaml' --seeds 3 --objective failovers");
  INFO(few.out);
  CHECK(few.out.find("=  " + examples + "tolerable-failures.yaml ") != std::string::npos);
  CHECK(few.out.find("tied for the best (=): scenario=" + examples + "tolerable-failures.yaml; ") !=
        std::string::npos);
  CHECK(few.out.find("best (*)") == std::string::npos);
}
