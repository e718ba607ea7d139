// Keeps docs/scenario-format.md honest: every ```yaml block in it (except ```yaml fragment)
// must load without a diagnostic.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"

TEST_CASE("every yaml example in docs/scenario-format.md loads without diagnostics") {
  std::ifstream in(std::string(CKPTSIM_SOURCE_DIR) + "/docs/scenario-format.md");
  REQUIRE(in);
  std::vector<std::string> examples;
  std::string line;
  std::string block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      examples.push_back(block);
    } else if (inside) {
      block += line + '\n';
    }
  }
  REQUIRE(examples.size() >= 5);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const auto result = ckptsim::scenario::load_string(
        examples[i], "docs/scenario-format.md example " + std::to_string(i + 1));
    INFO(examples[i]);
    INFO(ckptsim::scenario::format_diagnostics(result.diagnostics));
    CHECK(result.ok());
  }
}
