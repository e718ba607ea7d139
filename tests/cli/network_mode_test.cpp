// `network: exact | hybrid` from the command line: --network and --set network=... reach the run,
// the story's second line says which mode ran, and a bad mode is a usage error.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {
// A steady job: hybrid skips most of its 3 minutes (checkpoints every minute).
const char* kSteady = R"(name: steady
duration: 3 min
flink: { execution.checkpointing.interval: 1 min }
job:
  vertices:
    - { name: Source, parallelism: 2, rate: 2000 records/s }
    - { name: Sink, parallelism: 2, input: { from: Source, ship: rebalance }, cost: 20 us/record }
)";
}  // namespace

TEST_CASE("ckptsim run --network chooses how the network runs and the story says so",
          "[cli][network]") {
  TempDir dir("network-mode");
  write(dir.path() / "steady.yaml", kSteady);
  const Output exact = run_ckptsim(dir.path(), "run steady.yaml --out e --network exact");
  REQUIRE(exact.exit_code == 0);
  CHECK(exact.out.find("UTC, network exact\n") != std::string::npos);

  const Output hybrid = run_ckptsim(dir.path(), "run steady.yaml --out h");  // the default
  REQUIRE(hybrid.exit_code == 0);
  CHECK(hybrid.out.find("UTC, network hybrid (") != std::string::npos);
  CHECK(hybrid.out.find("skipped as steady") != std::string::npos);
  CHECK(hybrid.out.find(" 0 s of it skipped") == std::string::npos);

  // Without spread RPC latencies its checkpoints repeat, and all but the first two are replayed.
  const Output fixed = run_ckptsim(
      dir.path(), "run steady.yaml --out f --set cluster.rpc-latency-spread=0 --set duration=6min");
  REQUIRE(fixed.exit_code == 0);
  CHECK(fixed.out.find(" skips, 3 checkpoints replayed)") != std::string::npos);
  CHECK(hybrid.out.find("checkpoints replayed") == std::string::npos);

  const Output set = run_ckptsim(dir.path(), "run steady.yaml --out s --set network=exact");
  REQUIRE(set.exit_code == 0);
  CHECK(set.out.find("UTC, network exact\n") != std::string::npos);

  const Output bad = run_ckptsim(dir.path(), "run steady.yaml --out b --network fluid");
  CHECK(bad.exit_code != 0);
  CHECK(bad.out.find("fluid") != std::string::npos);
}

TEST_CASE("a scenario's network: key takes exact or hybrid only", "[cli][network]") {
  TempDir dir("network-key");
  write(dir.path() / "steady.yaml", std::string(kSteady) + "network: exact\n");
  const Output ok = run_ckptsim(dir.path(), "run steady.yaml --out o");
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.out.find("UTC, network exact\n") != std::string::npos);
  // The command line wins over the file.
  const Output hybrid = run_ckptsim(dir.path(), "run steady.yaml --out o --network hybrid");
  CHECK(hybrid.out.find("network hybrid (") != std::string::npos);
  CHECK(hybrid.out.find("skipped as steady") != std::string::npos);

  write(dir.path() / "bad.yaml", std::string(kSteady) + "network: fluid\n");
  const Output bad = run_ckptsim(dir.path(), "validate bad.yaml");
  CHECK(bad.exit_code != 0);
  CHECK(bad.out.find("bad.yaml:8:10") != std::string::npos);
  CHECK(bad.out.find("hybrid") != std::string::npos);
}

}  // namespace ckptsim::tests
