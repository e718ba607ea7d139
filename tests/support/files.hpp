// Small file helpers shared by the test folders.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ckptsim::tests {

// The whole file as bytes ("" if it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace ckptsim::tests
