// ckptsim compare --real (issue 19 item 2): real logs, the scenarios drafted from them and a run's
// output directory, side by side; a scenario that does something else diverges with exit 3 and
// names where; what only a comparison of scenarios takes is refused with --real.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string real(const std::string& name) {
  return "'" + std::string(CKPTSIM_SOURCE_DIR) + "/tests/data/real/" + name + "'";
}

const std::string kExpired = real("02-flinkcdc-273-expired-threadid-1.11.log");
const std::string kSeed =
    "'" + std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/seed/doris-cdc-table-swap.yaml'";

}  // namespace

TEST_CASE("compare --real: a draft reproduces its real log; a run's directory compares too") {
  TempDir dir("compare-real");
  REQUIRE(run_ckptsim(dir.path(), "draft " + kExpired + " --out incident.yaml").exit_code == 0);
  const Output same =
      run_ckptsim(dir.path(), "compare --real " + kExpired + " incident.yaml --out cmp");
  INFO(same.out);
  CHECK(same.exit_code == 0);
  CHECK(contains(same.out, "simulated: incident.yaml (scenario, seed 1)\n"));
  CHECK(contains(same.out,
                 "1       17       1  00:00:00  00:00:00  FAILED (CHECKPOINT_EXPIRED)  "
                 "FAILED (CHECKPOINT_EXPIRED)  180.1 s    180.0 s\n"));
  CHECK(contains(same.out, "       1  00:03:00   00:03:00\n"));
  CHECK(contains(same.out, "They agree: 1 checkpoint attempt in the same order"));
  CHECK(contains(read_file(dir.path() / "cmp" / "real-vs-sim.csv"),
                 "1,17,1,FAILED,FAILED,CHECKPOINT_EXPIRED,CHECKPOINT_EXPIRED,0,0,180081,"));
  CHECK(contains(read_file(dir.path() / "cmp" / "real-vs-sim.md"),
                 "| 1 | 17 | 1 | 00:00:00 | 00:00:00 | FAILED (CHECKPOINT_EXPIRED) | FAILED "
                 "(CHECKPOINT_EXPIRED) | 180.1 s | 180.0 s |  |\n"));
  CHECK(read_file(dir.path() / "cmp" / "real-vs-sim-failovers.csv") ==
        "index,real_ms,sim_ms,differs\n1,180083,180042,false\n");
  CHECK(contains(same.out, read_file(dir.path() / "cmp" / "real-vs-sim.txt")));
  // The same through a run's output directory, which has its seed already.
  REQUIRE(run_ckptsim(dir.path(), "run incident.yaml --out run-out").exit_code == 0);
  const Output from_dir = run_ckptsim(dir.path(), "compare --real " + kExpired + " run-out");
  CHECK(from_dir.exit_code == 0);
  CHECK(contains(from_dir.out, "simulated: run-out (a run's output: its jobmanager.log)\n"));
  CHECK(run_ckptsim(dir.path(), "compare --real " + kExpired + " run-out --seed 2").exit_code == 1);
}

TEST_CASE("compare --real: a draft of steady checkpoints agrees on every one the log shows") {
  TempDir dir("compare-real-steady");
  const std::string log = real("07-doris-45965-completed-1.18.1.log");
  REQUIRE(run_ckptsim(dir.path(), "draft " + log + " --out steady.yaml").exit_code == 0);
  const Output same = run_ckptsim(dir.path(), "compare --real " + log + " steady.yaml");
  INFO(same.out);
  CHECK(same.exit_code == 0);
  CHECK(contains(same.out, "2       75       2  00:00:09  00:00:10  COMPLETED    COMPLETED"));
  CHECK(contains(same.out, "3       76       3  00:00:19  00:00:20  IN_PROGRESS  COMPLETED"));
  CHECK(contains(same.out, "They agree: 3 checkpoint attempts"));
}

TEST_CASE("compare --real: another incident diverges, exit 3, and the first divergence is named") {
  TempDir dir("compare-real-diverge");
  const Output other = run_ckptsim(dir.path(), "compare --real " + kExpired + " " + kSeed);
  INFO(other.out);
  CHECK(other.exit_code == 3);
  CHECK(contains(
      other.out,
      "The first divergence is checkpoint #1 (real id 17, simulated id 1; status differs): real "
      "triggered at 00:00:00, FAILED (CHECKPOINT_EXPIRED) after 180.1 s; simulated "
      "triggered at 00:00:00, COMPLETED in 1.2 s."));
  CHECK(contains(other.out, "real: 1 checkpoint (0 completed, 1 failed), 1 failover; simulated:"));
  // Every trigger of the real job failed before it got an id (a FINISHED source subtask): the
  // seed incident's completed checkpoints are no match.
  const Output aborted = run_ckptsim(
      dir.path(),
      "compare --real " + real("12-chunjun-1022-trigger-aborted-finished-task.log") + " " + kSeed);
  INFO(aborted.out);
  CHECK(aborted.exit_code == 3);
  CHECK(contains(
      aborted.out,
      "The first divergence is checkpoint #1 (real id none, simulated id 1; status differs): real "
      "triggered at 00:00:00, FAILED (NOT_ALL_REQUIRED_TASKS_RUNNING) before it got "
      "an id; simulated triggered at 00:00:00, COMPLETED in 1.2 s."));
}

TEST_CASE("compare --real: usage errors exit 1, a side that cannot be read exits 2") {
  TempDir dir("compare-real-usage");
  // Options of a comparison of scenarios over seeds mean nothing against a real incident.
  for (const char* option :
       {"--seeds 3", "--first-seed 2", "--threads 2", "--report", "--objective failovers"})
    CHECK(run_ckptsim(dir.path(), "compare --real " + kExpired + " " + kSeed + " " + option)
              .exit_code == 1);
  // --seed is --real's.
  CHECK(run_ckptsim(dir.path(), "compare " + kSeed + " " + kSeed + " --seed 3").exit_code == 1);
  // The simulated side must be a scenario or a run's output directory.
  write(dir.path() / "empty" / "x.txt", "");
  const Output empty = run_ckptsim(dir.path(), "compare --real " + kExpired + " empty");
  CHECK(empty.exit_code == 2);
  CHECK(contains(empty.out, "ckptsim compare: error: empty is no ckptsim run output"));
  write(dir.path() / "other.json", R"({"hello":"world"})");
  CHECK(run_ckptsim(dir.path(), "compare --real other.json " + kSeed).exit_code == 2);
}

}  // namespace ckptsim::tests
