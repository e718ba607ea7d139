// Keeps the expectations documented in docs/scenario-format.md true: every ```yaml block with an
// `expect:` section is run with its seed and must meet all its expectations.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "analysis/expect.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"

TEST_CASE("every documented scenario with expectations meets them") {
  std::ifstream in(std::string(CKPTSIM_SOURCE_DIR) + "/docs/scenario-format.md");
  REQUIRE(in);
  std::vector<std::string> examples;
  std::string block;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      if (block.find("\nexpect:") != std::string::npos) examples.push_back(block);
    } else if (inside) {
      block += line + '\n';
    }
  }
  REQUIRE(examples.size() >= 2);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const auto loaded = ckptsim::scenario::load_string(examples[i], "example " + std::to_string(i));
    INFO(examples[i]);
    REQUIRE(loaded.ok());
    CHECK_FALSE(loaded.expectations.items.empty());
    const auto result = ckptsim::run::run(*loaded.scenario);
    for (const auto& r : ckptsim::analysis::check_expectations(loaded.expectations.items, result)) {
      INFO(ckptsim::analysis::describe_result(r));
      CHECK(r.passed);
    }
  }
}
