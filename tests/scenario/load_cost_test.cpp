// The loader's cost on large bad files stays linear (issue 18 item 9: seen profiling the loader's
// fuzz target). Before the fixes each case took 12-20 s in a Release build; now well under 1 s.
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"

namespace {

// A `flink:` map of `count` distinct unknown keys, each `prefix` then `length` letters.
std::string unknown_flink_keys(int count, int length) {
  std::string text = "job: { vertices: [ { name: Source } ] }\nflink:\n";
  std::string key(static_cast<std::size_t>(length), 'a');
  for (int i = 0; i < count; ++i) {
    int n = i;  // a distinct key per entry: i in base 16, written from the end
    for (std::size_t j = key.size(); j-- > 0 && n > 0; n /= 16)
      key[j] = static_cast<char>('a' + n % 16);
    text += "  execution.checkpointing." + key + ": 1\n";
  }
  return text;
}

double seconds_to_load(const std::string& text, std::size_t& errors) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = ckptsim::scenario::load_string(text, "big.yaml");
  errors = result.diagnostics.size() - 1 + result.errors_not_shown;  // minus "... and N more"
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Generous bounds (Release: 0.3-0.7 s; before the fixes 12-30 s): sanitizer builds and busy
// machines are several times slower.
TEST_CASE("a 4 MiB flink: map of 80,000 unknown keys loads in linear time") {
  std::size_t errors = 0;
  CHECK(seconds_to_load(unknown_flink_keys(80'000, 16), errors) < 10);
  CHECK(errors == 80'000);
}

TEST_CASE("a 4 MiB flink: map of 1,000-character unknown keys loads in linear time") {
  std::size_t errors = 0;
  CHECK(seconds_to_load(unknown_flink_keys(4'000, 970), errors) < 10);
  CHECK(errors == 4'000);
}
