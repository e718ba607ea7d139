// Golden tests of diagnostics: each tests/errors/<case>.yaml must produce exactly the text in
// tests/errors/<case>.expected (its errors, then its warnings). Lines "# --set KEY=VALUE" at the top of a case are passed as
// overrides. CKPTSIM_UPDATE_GOLDEN=1 rewrites the .expected files (review the diff!).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"
#include "tests/support/files.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> overrides_of(const std::string& text) {
  std::vector<std::string> overrides;
  std::istringstream lines(text);
  const std::string prefix = "# --set ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) break;
    overrides.push_back(line.substr(prefix.size()));
  }
  return overrides;
}

// Runs from the repository root so the printed paths are "tests/errors/<case>.yaml".
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& path) : saved_(fs::current_path()) {
    fs::current_path(path);
  }
  ~WorkingDirectory() { fs::current_path(saved_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path saved_;
};

}  // namespace

TEST_CASE("every bad scenario in tests/errors produces exactly its expected diagnostics") {
  WorkingDirectory root(CKPTSIM_SOURCE_DIR);
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator("tests/errors"))
    if (entry.path().extension() == ".yaml") cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 12);
  const bool update = std::getenv("CKPTSIM_UPDATE_GOLDEN") != nullptr;
  for (const fs::path& path : cases) {
    const std::string relative = path.generic_string();
    const ckptsim::scenario::LoadResult result =
        ckptsim::scenario::load_file(relative, overrides_of(ckptsim::tests::read_file(path)));
    const std::string actual = ckptsim::scenario::format_diagnostics(result.diagnostics) +
                               ckptsim::scenario::format_diagnostics(result.warnings);
    fs::path expected_path = path;
    expected_path.replace_extension(".expected");
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << actual;
      continue;
    }
    INFO("case " << relative);
    // A case has errors (the run cannot start) or only warnings (it can).
    CHECK(result.ok() == result.diagnostics.empty());
    CHECK_FALSE((result.diagnostics.empty() && result.warnings.empty()));
    REQUIRE(fs::exists(expected_path));
    CHECK(actual == ckptsim::tests::read_file(expected_path));
  }
}
