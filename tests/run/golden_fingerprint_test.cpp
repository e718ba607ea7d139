// Golden outputs, the safety net for refactors of the model: every scenario under scenarios/
// runs with seeds 1 and 7, and a fingerprint of everything `ckptsim run --out` writes (log, REST
// files, summary, time series) must equal the committed one in tests/golden/fingerprints.txt.
// A change that alters outputs on purpose regenerates the list (CKPTSIM_UPDATE_GOLDEN=1) and
// names the scenarios it changed in its commit message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../support/files.hpp"
#include "sim/run/run.hpp"
#include "sim/run/writers/writers.hpp"
#include "sim/scenario/scenario.hpp"

using namespace ckptsim;
namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a(std::uint64_t h, const std::string& bytes) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// FNV-1a over every file of `dir`, in path order, each as its relative path then its bytes.
std::string fingerprint_dir(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir));
  std::sort(files.begin(), files.end());
  std::uint64_t h = 14695981039346656037ULL;
  for (const fs::path& f : files) {
    h = fnv1a(h, f.generic_string() + '\0');
    h = fnv1a(h, tests::read_file(dir / f) + '\0');
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace

TEST_CASE("every scenario's outputs keep their golden fingerprint (seeds 1 and 7)", "[golden]") {
  const fs::path root = CKPTSIM_SOURCE_DIR;
  std::vector<fs::path> scenarios;
  for (const auto& e : fs::recursive_directory_iterator(root / "scenarios"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") scenarios.push_back(e.path());
  std::sort(scenarios.begin(), scenarios.end());
  REQUIRE(!scenarios.empty());

  const fs::path out = fs::temp_directory_path() / "ckptsim-golden";
  std::map<std::string, std::string> actual;
  for (const fs::path& file : scenarios) {
    const auto loaded = scenario::load_file(file.string());
    REQUIRE(loaded.ok());
    for (const std::uint64_t seed : {1ULL, 7ULL}) {
      fs::remove_all(out);
      const run::RunResult r = run::run(*loaded.scenario, seed);
      std::string error;
      REQUIRE(run::write_outputs(r, out, &error));
      actual[fs::relative(file, root).generic_string() + " seed " + std::to_string(seed)] =
          fingerprint_dir(out);
    }
  }
  fs::remove_all(out);

  const fs::path golden = root / "tests" / "golden" / "fingerprints.txt";
  if (std::getenv("CKPTSIM_UPDATE_GOLDEN")) {
    std::ofstream f(golden);
    for (const auto& [name, print] : actual) f << print << "  " << name << "\n";
    WARN("rewrote " << golden.string());
    return;
  }
  std::map<std::string, std::string> expected;
  std::istringstream lines(tests::read_file(golden));
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 18) expected[line.substr(18)] = line.substr(0, 16);
  for (const auto& [name, print] : actual) {
    INFO(name);
    REQUIRE(expected.count(name) == 1);
    CHECK(expected[name] == print);
  }
  CHECK(expected.size() == actual.size());
}
