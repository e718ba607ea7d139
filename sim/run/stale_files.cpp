#include "sim/run/stale_files.hpp"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <string>
#include <system_error>

namespace ckptsim::run {

namespace fs = std::filesystem;

void remove_stale_files(const fs::path& dir, std::string_view marker) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t at = name.rfind(marker);
    if (at == std::string::npos) continue;
    const std::string_view digits = std::string_view(name).substr(at + marker.size());
    long pid = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (error != std::errc() || end != digits.data() + digits.size() || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

}  // namespace ckptsim::run
