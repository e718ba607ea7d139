// `ckptsim validate` and `run` with options that have no effect: warnings that do not stop the
// run, and `validate --strict`, which makes them errors (issue 12 item 3).
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

const char* const kScenario = R"(flink:
  version: "1.17"
  execution.checkpointing.interval: 10 s
systems:
  doris: {kind: doris, ingest: 20 MB/s}
job:
  vertices:
    - {name: Source, rate: 100 records/s}
    - name: "Sink: Doris"
      input: Source
      connector: doris
      options:
        fenodes: fe:8030
        sink.properties.timeout: 600
duration: 1 min
)";

}  // namespace

TEST_CASE("an unmodelled connector option warns; validate --strict makes it an error") {
  TempDir dir("validate-strict");
  write(dir.path() / "s.yaml", kScenario);
  const Output plain = run_ckptsim(dir.path(), "validate s.yaml");
  CHECK(plain.exit_code == 0);
  CHECK(plain.out.find("s.yaml:14:9: warning: 'sink.properties.timeout' is a Doris option ckptsim "
                       "does not model; it has no effect") != std::string::npos);
  CHECK(plain.out.find("1 warning generated.") != std::string::npos);
  CHECK(plain.out.find("fenodes") == std::string::npos);  // where the data lives: silent

  const Output strict = run_ckptsim(dir.path(), "validate --strict s.yaml");
  CHECK(strict.exit_code == 2);
  CHECK(strict.out.find("s.yaml:14:9: error: 'sink.properties.timeout'") != std::string::npos);
  CHECK(strict.out.find("1 error generated.") != std::string::npos);

  const Output run = run_ckptsim(dir.path(), "run s.yaml --out out -q");
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("warning: 'sink.properties.timeout'") != std::string::npos);
}

}  // namespace ckptsim::tests
