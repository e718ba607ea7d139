// The exit codes every command shares (README "Exit codes", sim/cli/limits.hpp) and the
// command-line mistakes issue 18 item 5 found: each case fails on the behaviour it names.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const kTinyJob = "job:\n  vertices:\n    - {name: Source, rate: 10 records/s}\n"
                             "duration: 1 min\n";

}  // namespace

TEST_CASE("an unknown command is named, exit 1; help and --version exit 0") {
  TempDir dir("exit-usage");
  const Output bogus = run_ckptsim(dir.path(), "bogus");
  CHECK(bogus.exit_code == 1);
  CHECK(contains(bogus.out, "unknown command 'bogus'"));
  const Output help = run_ckptsim(dir.path(), "help");
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "Exit codes: 0 ok, 1 usage"));
  CHECK(contains(help.out, "validate"));
  const Output help_run = run_ckptsim(dir.path(), "help run");
  CHECK(help_run.exit_code == 0);
  CHECK(contains(help_run.out, "--trace-window"));
  CHECK(run_ckptsim(dir.path(), "help nothing").exit_code == 1);
  const Output version = run_ckptsim(dir.path(), "--version");
  CHECK(version.exit_code == 0);
  CHECK(contains(version.out, "(git "));
  CHECK(contains(version.out, "models Apache Flink 1.15, 1.16, 1.17, 1.18, 1.19, 1.20, 2.0, 2.1"));
  CHECK(run_ckptsim(dir.path(), "run --no-such-flag").exit_code == 1);  // CLI11 says 109
}

TEST_CASE("a negative seed and zero seeds are usage errors with a short message") {
  TempDir dir("exit-seeds");
  write(dir.path() / "s.yaml", kTinyJob);
  const Output negative = run_ckptsim(dir.path(), "run s.yaml -q --seed -1");
  CHECK(negative.exit_code == 1);
  CHECK(contains(negative.out, "a seed is a whole number from 0 to 18446744073709551615"));
  const Output zero = run_ckptsim(dir.path(), "sweep s.yaml --vary seed=1 --seeds 0");
  CHECK(zero.exit_code == 1);
  CHECK(contains(zero.out, "--seeds: Value 0 not in range 1 to 1000000"));
  CHECK(zero.out.size() < 200);
}

TEST_CASE("a sweep or comparison whose points failed exits 3") {
  TempDir dir("exit-sweep");
  write(dir.path() / "s.yaml", kTinyJob);
  CHECK(run_ckptsim(dir.path(), "sweep missing.yaml --vary seed=1,2 --seeds 1").exit_code == 3);
  CHECK(run_ckptsim(dir.path(), "sweep s.yaml --vary no.such.key=1 --seeds 1").exit_code == 3);
  CHECK(run_ckptsim(dir.path(), "compare s.yaml missing.yaml --seeds 1").exit_code == 3);
  CHECK(run_ckptsim(dir.path(), "sweep s.yaml --vary seed=1,2 --seeds 1").exit_code == 0);
}

TEST_CASE("test exits 2 for a scenario with errors and 3 for a failed expectation") {
  TempDir dir("exit-test");
  write(dir.path() / "bad" / "b.yaml", "job: {vertices: [{name: Source, rat: 1}]}\n");
  write(dir.path() / "fail" / "f.yaml",
        std::string(kTinyJob) + "expect:\n  - completed checkpoints: \">= 1000\"\n");
  CHECK(run_ckptsim(dir.path(), "test bad").exit_code == 2);
  CHECK(run_ckptsim(dir.path(), "test fail").exit_code == 3);
}

TEST_CASE("inputs that cannot hold a scenario are refused without reading them") {
  TempDir dir("exit-inputs");
  const Output zero = run_ckptsim(dir.path(), "validate /dev/zero");
  CHECK(zero.exit_code == 2);
  CHECK(contains(zero.out, "/dev/zero: error: cannot open scenario file: it is a device"));
  write(dir.path() / "big.yaml", std::string(kTinyJob) + "# " + std::string(5 << 20, 'x') + "\n");
  const Output big = run_ckptsim(dir.path(), "validate big.yaml");
  CHECK(big.exit_code == 2);
  CHECK(contains(big.out, "it is larger than 4194304 bytes"));
  CHECK(run_ckptsim(dir.path(), "validate big.yaml --max-input-size 8MiB").exit_code == 0);
  write(dir.path() / "uses-big.yaml", "base: big.yaml\n");
  const Output base = run_ckptsim(dir.path(), "validate uses-big.yaml");
  CHECK(base.exit_code == 2);
  CHECK(contains(base.out, "uses-big.yaml:1:7: error: cannot open base scenario 'big.yaml'"));
}

TEST_CASE("a run that would not fit in --max-memory is refused with exit 4, not bad_alloc") {
  TempDir dir("exit-memory");
  write(dir.path() / "wide.yaml",
        "job:\n  vertices:\n    - {name: Source, parallelism: 10000}\n"
        "    - {name: Sink, input: {from: Source, ship: rebalance}, parallelism: 10000}\n");
  const Output run = run_ckptsim(dir.path(), "run wide.yaml -q");
  CHECK(run.exit_code == 4);
  CHECK(contains(run.out, "100000000 channels"));
  CHECK(contains(run.out, "raise --max-memory"));
  CHECK(run_ckptsim(dir.path(), "validate wide.yaml").exit_code == 4);
  write(dir.path() / "s.yaml", kTinyJob);
  CHECK(run_ckptsim(dir.path(), "run s.yaml -q --max-memory 1MiB").exit_code == 4);
}

}  // namespace ckptsim::tests

namespace ckptsim::tests {

TEST_CASE("--max-wall stops a long run cleanly and marks its outputs as partial") {
  TempDir dir("max-wall");
  write(dir.path() / "slow.yaml",
        "flink:\n  execution.checkpointing.interval: 10 s\n  execution.buffer-timeout: 1 ns\n"
        "job:\n  vertices:\n    - {name: Source, rate: 50000 records/s, parallelism: 4}\n"
        "    - {name: Sink, input: {from: Source, ship: rebalance}, parallelism: 4}\n"
        "duration: 1 d\n");
  const Output run = run_ckptsim(dir.path(), "run slow.yaml --out out --max-wall 0.3");
  CHECK(run.exit_code == 0);
  CHECK(contains(run.out, "(stopped early by --max-wall: a partial run)"));
  CHECK(contains(read_file(dir.path() / "out" / "summary.json"), "\"stopped_early\": true"));
  CHECK(run_ckptsim(dir.path(), "run slow.yaml --max-wall 0").exit_code == 1);
}

}  // namespace ckptsim::tests
