// ckptsim draft on the command line: a real log drafted to a file that `validate` accepts and
// `test` passes; without --out the scenario goes to stdout; unreadable input is refused.
#include <catch2/catch.hpp>

#include "tests/cli/cli_support.hpp"

namespace ckptsim::tests {

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kExpiredLog =
    std::string(CKPTSIM_SOURCE_DIR) + "/tests/data/real/02-flinkcdc-273-expired-threadid-1.11.log";

}  // namespace

TEST_CASE("draft writes a scenario that validate accepts and test passes") {
  TempDir dir("draft");
  const Output drafted = run_ckptsim(dir.path(), "draft '" + kExpiredLog + "' --out incident.yaml");
  INFO(drafted.out);
  REQUIRE(drafted.exit_code == 0);
  CHECK(contains(drafted.out, "draft written to incident.yaml"));
  CHECK(run_ckptsim(dir.path(), "validate --strict incident.yaml").exit_code == 0);
  const Output tested = run_ckptsim(dir.path(), "test incident.yaml");
  INFO(tested.out);
  CHECK(tested.exit_code == 0);
  CHECK(contains(tested.out, "PASS incident.yaml"));

  const Output printed = run_ckptsim(dir.path(), "draft '" + kExpiredLog + "'");
  CHECK(printed.exit_code == 0);
  CHECK(contains(printed.out, "  - checkpoint 1: expired\n"));
  CHECK(contains(printed.out, "do: stall"));
}

TEST_CASE("draft refuses a file it cannot import, with the file's name, exit 2") {
  TempDir dir("draft-bad");
  write(dir.path() / "other.json", R"({"hello":"world"})");
  const Output bad = run_ckptsim(dir.path(), "draft other.json");
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.out, "ckptsim draft: error: other.json"));
  CHECK(run_ckptsim(dir.path(), "draft").exit_code != 0);  // FILE is required
}

}  // namespace ckptsim::tests
