// ckptsim compare --real (issue 19 item 2): a real log, the scenario drafted from it, and a run's
// output directory, side by side; a scenario that does something else diverges with exit 3 and
// names where.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kReal = std::string(CKPTSIM_SOURCE_DIR) + "/tests/data/real/";

}  // namespace

TEST_CASE("compare --real: a draft reproduces its real log; a run's directory compares too") {
  TempDir dir("compare-real");
  const std::string log = "'" + kReal + "02-flinkcdc-273-expired-threadid-1.11.log'";
  REQUIRE(run_ckptsim(dir.path(), "draft " + log + " --out incident.yaml").exit_code == 0);
  const Output same = run_ckptsim(dir.path(), "compare --real " + log + " incident.yaml --out cmp");
  INFO(same.out);
  CHECK(same.exit_code == 0);
  CHECK(contains(same.out, "FAILED (CHECKPOINT_EXPIRED)              FAILED (CHECKPOINT_EXPIRED)"));
  CHECK(contains(same.out, "failover 1: real 00:03:00, simulated 00:03:00\n"));
  CHECK(contains(same.out, "they agree"));
  CHECK(contains(read_file(dir.path() / "cmp" / "real-vs-sim.csv"),
                 "1,17,1,FAILED,FAILED,CHECKPOINT_EXPIRED,CHECKPOINT_EXPIRED,"));
  // The same through a run's output directory.
  REQUIRE(run_ckptsim(dir.path(), "run incident.yaml --out run-out").exit_code == 0);
  CHECK(run_ckptsim(dir.path(), "compare --real " + log + " run-out").exit_code == 0);
}

TEST_CASE("compare --real: another incident diverges, exit 3, and the first divergence is named") {
  TempDir dir("compare-real-diverge");
  const std::string log = "'" + kReal + "02-flinkcdc-273-expired-threadid-1.11.log'";
  const Output other =
      run_ckptsim(dir.path(), "compare --real " + log + " '" + std::string(CKPTSIM_SOURCE_DIR) +
                                  "/scenarios/seed/doris-cdc-table-swap.yaml'");
  INFO(other.out);
  CHECK(other.exit_code == 3);
  CHECK(contains(other.out,
                 "first divergence: checkpoint #1 (real 17, sim 1): real FAILED "
                 "(CHECKPOINT_EXPIRED) in 180.1 s, simulated COMPLETED in"));
  // Usage: the simulated side must be a scenario or a run's output directory.
  write(dir.path() / "empty" / "x.txt", "");
  CHECK(run_ckptsim(dir.path(), "compare --real " + log + " empty").exit_code == 2);
}

}  // namespace ckptsim::tests
