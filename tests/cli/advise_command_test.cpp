// ckptsim advise on the command line (issue 19 item 3): on the seed incident it recommends what
// worked in the field (scan.startup.mode=latest-offset) and says why unaligned checkpoints cannot
// help; on catalog incidents it finds their field fixes; it never recommends a condition.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string scenario(const std::string& name) {
  return "'" + std::string(CKPTSIM_SOURCE_DIR) + "/scenarios/" + name + "'";
}

// The text of one section of the advice (from its title to the next blank line).
std::string section(const std::string& text, const std::string& title) {
  const std::size_t start = text.find(title);
  if (start == std::string::npos) return "";
  return text.substr(start, text.find("\n\n", start) - start);
}

}  // namespace

TEST_CASE("advise on the seed incident: latest-offset, and unaligned checkpoints do not help") {
  TempDir dir("advise-seed");
  const Output out =
      run_ckptsim(dir.path(), "advise " + scenario("seed/doris-cdc-table-swap.yaml") +
                                  " --seeds 10 --out advice");
  INFO(out.out);
  REQUIRE(out.exit_code == 0);
  CHECK(contains(out.out,
                 "Verdict: set job.vertices[Source: MySQL CDC Source].options."
                 "scan.startup.mode=latest-offset\n"));
  CHECK(contains(out.out, "the task thread is blocked in the Doris writer since"));
  CHECK(contains(out.out, "backfill them by other means"));
  const std::string ties = section(out.out, "No better than the baseline (a tie within noise):");
  CHECK(contains(ties, "execution.checkpointing.unaligned=true"));
  CHECK(contains(ties,
                 "a barrier, aligned or unaligned, and a source's trigger are processed by "
                 "that thread"));
  // Tolerating the failures is not a fix, and a longer timeout is not even tried.
  CHECK(contains(section(out.out, "Fewer failovers only by hiding"),
                 "tolerable-failed-checkpoints=3"));
  CHECK(contains(section(out.out, "Not tried:"), "execution.checkpointing.timeout=30 min"));
  for (const char* file : {"advice.txt", "comparison.csv", "comparison.json", "comparison.md"})
    CHECK(std::filesystem::exists(dir.path() / "advice" / file));
  // The sweep beside it is a regular one: its points resume, and the advice is the same.
  const std::string first = read_file(dir.path() / "advice" / "advice.txt");
  const Output again =
      run_ckptsim(dir.path(), "advise " + scenario("seed/doris-cdc-table-swap.yaml") +
                                  " --seeds 10 --out advice");
  CHECK(again.exit_code == 0);
  CHECK(contains(again.out, "points already done in advice, skipped"));
  CHECK(read_file(dir.path() / "advice" / "advice.txt") == first);
}

TEST_CASE("advise finds the field fixes of catalog incidents") {
  TempDir dir("advise-catalog");
  struct Case {
    const char* file;
    const char* verdict;
  };
  for (const Case& c :
       {Case{"catalog/b06-doris-writer-blocks-after-http-failure.yaml",
             "Verdict: set job.vertices[Sink: Doris].options.sink.check-interval=10 s\n"},
        Case{"catalog/b13-finished-source-subtasks.yaml",
             "Verdict: set execution.checkpointing.checkpoints-after-tasks-finish.enabled=true\n"},
        Case{"catalog/b09-kafka-transaction-aborted-by-broker.yaml",
             "Verdict: set job.vertices[Sink: enriched-orders].options."
             "properties.transaction.timeout.ms=900000\n"},
        Case{"catalog/b03-binlog-waits-for-checkpoint.yaml",
             "Verdict: set execution.checkpointing.interval=3 min\n"}}) {
    const Output out = run_ckptsim(dir.path(), "advise " + scenario(c.file) + " --seeds 5 --out " +
                                                   std::filesystem::path(c.file).stem().string());
    INFO(out.out);
    CHECK(out.exit_code == 0);
    CHECK(contains(out.out, c.verdict));
  }
}

TEST_CASE("advise with nothing to address says so; a bad objective is a usage error") {
  TempDir dir("advise-none");
  const Output out = run_ckptsim(
      dir.path(), "advise " + scenario("catalog/b11-skew-long-alignment-fix.yaml") + " --seeds 2");
  INFO(out.out);
  CHECK(out.exit_code == 0);
  CHECK(contains(out.out, "Verdict: nothing to try"));
  CHECK(run_ckptsim(dir.path(),
                    "advise " + scenario("seed/doris-cdc-table-swap.yaml") + " --objective fastest")
            .exit_code == 1);
  CHECK(run_ckptsim(dir.path(), "advise missing.yaml").exit_code == 2);
}

}  // namespace ckptsim::tests
