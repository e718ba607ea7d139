// Helpers of the CLI tests: a temporary directory and running the built ckptsim binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/files.hpp"

namespace ckptsim::tests {

namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed at the end.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("ckptsim-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

struct Output {
  int exit_code = -1;
  std::string out;
};

// Runs `ckptsim ARGS` in `dir` and captures stdout and stderr together.
inline Output run_ckptsim(const fs::path& dir, const std::string& args) {
  const fs::path out_file =
      fs::temp_directory_path() / ("ckptsim-output-" + std::to_string(::getpid()) + ".txt");
  const std::string command = "cd '" + dir.string() + "' && '" + std::string(CKPTSIM_BINARY) +
                              "' " + args + " > '" + out_file.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  Output output;
  output.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  output.out = ckptsim::tests::read_file(out_file);
  fs::remove(out_file);
  return output;
}

}  // namespace ckptsim::tests
