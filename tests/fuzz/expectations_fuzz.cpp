// libFuzzer target: the `expect:` section parser. The input is the body of `expect:` (the list
// under it), appended to a minimal valid scenario so that the loader reaches the expectations.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string_view kScenario =
      "job: { vertices: [ { name: Source } ] }\n"
      "duration: 30 min\n"
      "expect:\n";
  std::string text(kScenario);
  text.append(reinterpret_cast<const char*>(data), size);
  const ckptsim::scenario::LoadResult result =
      ckptsim::scenario::load_string(text, "fuzz-expect.yaml");
  if (result.scenario.has_value() != result.diagnostics.empty()) __builtin_trap();
  const std::string shown = ckptsim::scenario::format_diagnostics(result.diagnostics);
  return 0;
}
