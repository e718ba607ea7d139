// Output folders (issue 18 item 6): a run replaces its --out whole, refuses a folder that holds
// something else, leaves no temporary behind; a sweep's --out is locked against a second sweep,
// and a point's identity does not depend on how the scenario path was spelled.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

std::size_t detail_files(const fs::path& out) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(out))
    n += e.path().parent_path().filename() == "details";
  return n;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

const char* const kJob = "flink:\n  execution.checkpointing.interval: 10 s\n"
                         "job:\n  vertices:\n    - {name: Source, rate: 10 records/s}\n";

}  // namespace

TEST_CASE("a run into an existing --out replaces it whole") {
  TempDir dir("out-replace");
  write(dir.path() / "long.yaml", std::string(kJob) + "duration: 100 s\n");
  write(dir.path() / "short.yaml", std::string(kJob) + "duration: 35 s\n");
  REQUIRE(run_ckptsim(dir.path(), "run long.yaml --out out -q --report").exit_code == 0);
  const std::size_t before = detail_files(dir.path() / "out");
  REQUIRE(run_ckptsim(dir.path(), "run short.yaml --out out/ -q").exit_code == 0);
  CHECK(detail_files(dir.path() / "out") < before);  // no detail file of the longer run is left
  CHECK_FALSE(fs::exists(dir.path() / "out" / "report.html"));
  CHECK(entries(dir.path()) == 3);  // long.yaml, short.yaml, out: no temporary beside it
}

TEST_CASE("a run refuses an --out that holds something other than a run") {
  TempDir dir("out-refuse");
  write(dir.path() / "s.yaml", std::string(kJob) + "duration: 15 s\n");
  write(dir.path() / "mine" / "notes.txt", "precious\n");
  const Output run = run_ckptsim(dir.path(), "run s.yaml --out mine -q");
  CHECK(run.exit_code == 1);
  CHECK(run.out.find("exists and holds no ckptsim run") != std::string::npos);
  CHECK(read_file(dir.path() / "mine" / "notes.txt") == "precious\n");
  CHECK(run_ckptsim(dir.path(), "run s.yaml --out . -q").exit_code == 1);
}

TEST_CASE("leftovers of a killed writer are removed by the next run") {
  TempDir dir("out-stale");
  write(dir.path() / "s.yaml", std::string(kJob) + "duration: 15 s\n");
  // pid 2^22+1 is above Linux's pid_max limit: no such process.
  write(dir.path() / ".out.ckptsim-tmp-4194305" / "summary.json", "{}");
  REQUIRE(run_ckptsim(dir.path(), "run s.yaml --out out -q").exit_code == 0);
  CHECK_FALSE(fs::exists(dir.path() / ".out.ckptsim-tmp-4194305"));
}

TEST_CASE("a second sweep into a locked --out is refused; stale point temporaries go") {
  TempDir dir("sweep-lock");
  write(dir.path() / "s.yaml", std::string(kJob) + "duration: 15 s\n");
  fs::create_directories(dir.path() / "sw" / "points");
  write(dir.path() / "sw" / "points" / "abc.json.tmp4194305", "partial");
  const std::string hold = "cd '" + dir.path().string() +
                           "' && (flock sw sleep 5 &) && sleep 0.3";
  REQUIRE(std::system(hold.c_str()) == 0);
  const Output second = run_ckptsim(dir.path(), "sweep s.yaml --vary seed=1 --seeds 1 --out sw");
  CHECK(second.exit_code == 1);
  CHECK(second.out.find("another ckptsim is writing into sw") != std::string::npos);
  CHECK(std::system("sleep 5") == 0);
  CHECK(run_ckptsim(dir.path(), "sweep s.yaml --vary seed=1 --seeds 1 --out sw").exit_code == 0);
  CHECK_FALSE(fs::exists(dir.path() / "sw" / "points" / "abc.json.tmp4194305"));
}

TEST_CASE("a sweep resumes whether the scenario path was written ./s.yaml or s.yaml") {
  TempDir dir("sweep-spelling");
  write(dir.path() / "s.yaml", std::string(kJob) + "duration: 15 s\n");
  REQUIRE(run_ckptsim(dir.path(), "sweep ./s.yaml --vary seed=1,2 --seeds 1 --out sw").exit_code ==
          0);
  const Output again = run_ckptsim(dir.path(), "sweep s.yaml --vary seed=1,2 --seeds 1 --out sw");
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("2 of 2 points already done") != std::string::npos);
}

}  // namespace ckptsim::tests
