// run::remove_stale_files: leftovers of a killed writer go, a live writer's and other names stay.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/run/stale_files.hpp"

namespace fs = std::filesystem;

TEST_CASE("remove_stale_files removes only names ending in the marker and a dead process's pid") {
  const fs::path dir = fs::temp_directory_path() / ("stale-files-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / ".out.ckptsim-tmp-4194305");  // pid above Linux's pid_max default
  const std::string live = std::to_string(::getpid());
  for (const std::string& name : {std::string("p.json.tmp4194305"), "p.json.tmp" + live,
                                  std::string("p.json.tmp42x"), std::string("p.json.tmp"),
                                  std::string("p.json")})
    std::ofstream(dir / name) << "x";

  ckptsim::run::remove_stale_files(dir, ".ckptsim-tmp-");
  ckptsim::run::remove_stale_files(dir, ".tmp");

  CHECK_FALSE(fs::exists(dir / ".out.ckptsim-tmp-4194305"));
  CHECK_FALSE(fs::exists(dir / "p.json.tmp4194305"));
  CHECK(fs::exists(dir / ("p.json.tmp" + live)));  // its writer is this very process
  CHECK(fs::exists(dir / "p.json.tmp42x"));
  CHECK(fs::exists(dir / "p.json.tmp"));
  CHECK(fs::exists(dir / "p.json"));
  fs::remove_all(dir);
}
