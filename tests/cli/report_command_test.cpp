// `ckptsim run --report/--trace/--trace-window` and `ckptsim report DIR`: the files they write
// and their errors.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

TEST_CASE("run --report --trace writes report.html and trace.json, and report rewrites it") {
  TempDir dir("report-cli");
  const Output run = run_ckptsim(dir.path(), "run --out out --report --trace -q");
  REQUIRE(run.exit_code == 0);
  const std::string html = read_file(dir.path() / "out" / "report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(read_file(dir.path() / "out" / "trace.json").rfind("{\"displayTimeUnit\"", 0) == 0);
  fs::remove(dir.path() / "out" / "report.html");
  const Output report = run_ckptsim(dir.path(), "report out");
  CHECK(report.exit_code == 0);
  CHECK(read_file(dir.path() / "out" / "report.html") == html);
  CHECK(run_ckptsim(dir.path(), "report out --out elsewhere.html").exit_code == 0);
  CHECK(read_file(dir.path() / "elsewhere.html") == html);
}

TEST_CASE("a trace window bounds trace.json; a malformed one is an error") {
  TempDir dir("report-window");
  REQUIRE(run_ckptsim(dir.path(), "run --out whole --trace -q").exit_code == 0);
  REQUIRE(run_ckptsim(dir.path(), "run --out part --trace-window 1min..2min -q").exit_code == 0);
  CHECK(read_file(dir.path() / "part" / "trace.json").size() * 10 <
        read_file(dir.path() / "whole" / "trace.json").size());
  for (const char* bad : {"5min", "2min..1min", "x..1min"}) {
    const Output out = run_ckptsim(dir.path(), std::string("run --out bad --trace-window ") + bad);
    CHECK(out.exit_code == 1);
    CHECK(out.out.find("--trace-window takes FROM..TO") != std::string::npos);
  }
}

TEST_CASE("sweep --report and report SWEEP_DIR draw the same points") {
  TempDir dir("report-sweep");
  const std::string scenario =
      std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/seed/doris-cdc-table-swap.yaml";
  REQUIRE(run_ckptsim(dir.path(), "sweep '" + scenario +
                                      "' --vary execution.checkpointing.timeout=1min,2min,5min "
                                      "--seeds 2 --threads 1 --out sw --report")
              .exit_code == 0);
  const std::string html = read_file(dir.path() / "sw" / "report.html");
  CHECK(html.find("Metrics against <code>execution.checkpointing.timeout</code>") !=
        std::string::npos);
  REQUIRE(run_ckptsim(dir.path(), "report sw --out again.html").exit_code == 0);
  // Without the sweep's objective nothing is marked best; the points are the same.
  const std::string again = read_file(dir.path() / "again.html");
  const auto points = [](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = text.find("class=\"ci-point\""); at != std::string::npos;
         at = text.find("class=\"ci-point\"", at + 1))
      ++n;
    return n;
  };
  CHECK(points(html) > 0);
  CHECK(points(again) == points(html));
}

TEST_CASE("report of a directory that is neither a run's nor a sweep's says so") {
  TempDir dir("report-none");
  const Output out = run_ckptsim(dir.path(), "report .");
  CHECK(out.exit_code == 1);
  CHECK(out.out.find("neither a run's output") != std::string::npos);
  CHECK(run_ckptsim(dir.path(), "compare a.yaml b.yaml --report").exit_code == 1);
}

}  // namespace ckptsim::tests
