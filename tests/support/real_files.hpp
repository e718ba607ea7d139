// The real Flink files of tests/data/real (sources in its INDEX.md), for the importer tests.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/import/import.hpp"

namespace ckptsim::tests {

// The file of tests/data/real whose name starts with `prefix` ("02-").
inline std::string real_file(const std::string& prefix) {
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(std::string(CKPTSIM_SOURCE_DIR) + "/tests/data/real"))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path().string();
  FAIL("no file " << prefix);
  return "";
}

// `files` imported; the test fails (with the error) if they cannot be.
inline analysis::Imported import_or_fail(const std::vector<std::string>& files) {
  std::string error;
  auto imported = analysis::import_files(files, error);
  INFO(error);
  REQUIRE(imported.has_value());
  return *imported;
}

}  // namespace ckptsim::tests
