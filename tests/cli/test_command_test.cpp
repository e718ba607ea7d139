// `ckptsim test` end to end: runs the built binary on a directory of passing, failing, broken and
// expectation-less scenarios and checks its lines, its total, its exit code and its JUnit file.
#include <catch2/catch.hpp>

#include <string>

#include "tests/cli/cli_support.hpp"

namespace {

using namespace ckptsim::tests;

const char* const kJob =
    "duration: 10 min\n"
    "flink: { execution.checkpointing.interval: 1 min }\n"
    "job: { vertices: [ { name: Source }, { name: Sink, input: Source } ] }\n";

void write_cases(const fs::path& dir) {
  write(dir / "cases/pass.yaml", std::string(kJob) +
                                     "expect:\n"
                                     "  - completed checkpoints: \">= 5\"\n"
                                     "  - job: no failover\n");
  write(dir / "cases/sub/fail.yaml", std::string(kJob) +
                                         "expect:\n"
                                         "  - checkpoints: all completed\n"
                                         "  - job: failed-over\n"
                                         "    within: 5 min\n"
                                         "  - completed checkpoints: \"< 2\"\n");
  // An overlay inherits the expectations of its base (the list is not replaced here).
  write(dir / "cases/sub/overlay.yaml", "base: fail.yaml\nname: overlay\n");
  write(dir / "cases/none.yaml", kJob);
  write(dir / "cases/broken.yaml", "job: { vertices: [ { name: Source, parallelism: 0 } ] }\n");
  write(dir / "cases/notes.txt", "not a scenario\n");
}

}  // namespace

TEST_CASE("ckptsim test prints a line per scenario and a total, and fails when one fails") {
  TempDir dir("test-command");
  write_cases(dir.path());
  const Output output = run_ckptsim(dir.path(), "test cases --junit report.xml");
  CHECK(output.exit_code == 2);  // a scenario with errors (2) beats a failed expectation (3)
  CHECK(output.out ==
        "FAIL cases/broken.yaml: 1 error in the scenario\n"
        "cases/broken.yaml:1:49: error: parallelism must be at least 1, got 0\n"
        "    1 | job: { vertices: [ { name: Source, parallelism: 0 } ] }\n"
        "      |                                                 ^\n"
        "PASS cases/none.yaml (no expectations)\n"
        "PASS cases/pass.yaml\n"
        "FAIL cases/sub/fail.yaml:6:5: job: failed-over within 5 min: expected a failover by "
        "00:05:00.000, got no failover\n"
        "FAIL cases/sub/overlay.yaml: cases/sub/fail.yaml:6:5: job: failed-over within 5 min: "
        "expected a failover by 00:05:00.000, got no failover\n"
        "2 passed, 3 failed\n");

  const std::string junit = ckptsim::tests::read_file(dir.path() / "report.xml");
  CHECK(junit.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ckptsim test\" "
                    "tests=\"5\" failures=\"2\" errors=\"1\">\n",
                    0) == 0);
  CHECK(junit.find("<testcase classname=\"cases\" name=\"pass.yaml\" file=\"cases/pass.yaml\"/>") !=
        std::string::npos);
  CHECK(junit.find("<testcase classname=\"cases.sub\" name=\"fail.yaml\" "
                   "file=\"cases/sub/fail.yaml\">\n      <failure message=\"cases/sub/fail.yaml:6:5: "
                   "job: failed-over within 5 min: expected a failover by 00:05:00.000, got no "
                   "failover\">") != std::string::npos);
  CHECK(junit.find("<error message=\"1 error in the scenario\">") != std::string::npos);
  CHECK(junit.find("cases/broken.yaml:1:49: error: parallelism must be at least 1, got 0") !=
        std::string::npos);
  CHECK(junit.find("cases/sub/fail.yaml:8:5: completed checkpoints: &lt; 2: expected &lt; 2, got "
                   "10\n") != std::string::npos);
  const std::string end = "  </testsuite>\n</testsuites>\n";
  CHECK(junit.substr(junit.size() - end.size()) == end);
}

TEST_CASE("ckptsim test gives the same output and JUnit file with 1 and with 2 threads") {
  TempDir dir("test-threads");
  write_cases(dir.path());
  const Output one = run_ckptsim(dir.path(), "test cases --threads 1 --junit one.xml");
  const Output two = run_ckptsim(dir.path(), "test cases --threads 2 --junit two.xml");
  CHECK(one.out == two.out);
  CHECK(ckptsim::tests::read_file(dir.path() / "one.xml") ==
        ckptsim::tests::read_file(dir.path() / "two.xml"));
}

TEST_CASE("ckptsim test passes and exits 0 when every scenario passes") {
  TempDir dir("test-pass");
  write_cases(dir.path());
  const Output output = run_ckptsim(dir.path(), "test cases/pass.yaml cases/none.yaml");
  CHECK(output.exit_code == 0);
  CHECK(output.out == "PASS cases/pass.yaml\nPASS cases/none.yaml (no expectations)\n"
                      "2 passed, 0 failed\n");
}

TEST_CASE("ckptsim test reports a missing path as a failed scenario") {
  TempDir dir("test-missing");
  const Output output = run_ckptsim(dir.path(), "test nowhere.yaml");
  CHECK(output.exit_code == 2);
  CHECK(output.out == "FAIL nowhere.yaml: 1 error in the scenario\n"
                      "nowhere.yaml: error: cannot open scenario file: No such file or directory\n"
                      "0 passed, 1 failed\n");
}

TEST_CASE("the example scenarios pass ckptsim test") {
  const Output output =
      run_ckptsim(CKPTSIM_SOURCE_DIR, "test scenarios");
  INFO(output.out);
  CHECK(output.exit_code == 0);
  CHECK(output.out.find(" 0 failed\n") != std::string::npos);
}
