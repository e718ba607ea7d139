// libFuzzer target: a whole scenario file through scenario::load_string, as `ckptsim run FILE`
// reads it. Leading lines "# --set KEY=VALUE" are passed as --set overrides, as in tests/errors.
// Any crash, sanitizer report, leak or timeout is a loader bug: bad input must become diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace {

std::vector<std::string> overrides_of(std::string_view text) {
  std::vector<std::string> overrides;
  constexpr std::string_view prefix = "# --set ";
  while (text.substr(0, prefix.size()) == prefix) {
    const std::size_t end = text.find('\n');
    overrides.emplace_back(text.substr(prefix.size(), end - prefix.size()));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Named as if it were in scenarios/catalog/, so the seeds' `base:` files are found.
  static const std::string file_name = CKPTSIM_SOURCE_DIR "/scenarios/catalog/fuzz-input.yaml";
  const ckptsim::scenario::LoadResult result =
      ckptsim::scenario::load_string(text, file_name, overrides_of(text));
  // Formatting is part of what a user sees for a bad file: exercise it too.
  const std::string shown = ckptsim::scenario::format_diagnostics(result.diagnostics) +
                            ckptsim::scenario::format_diagnostics(result.warnings);
  if (result.scenario.has_value() != result.diagnostics.empty()) __builtin_trap();
  return 0;
}
