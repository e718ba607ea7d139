// --web-dir: a static web application (e.g. the web dashboard folder of a Flink distribution)
// served beside the API, as Flink's StaticFileServerHandler serves its dashboard: "/" is
// index.html, content types by extension; never a file outside the directory (no "..", no
// symbolic link leading out, no special files).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "sim/server/rest_api.hpp"

namespace ckptsim::server {

class StaticFiles {
 public:
  // `root` must be a directory; throws std::runtime_error naming it otherwise.
  explicit StaticFiles(const std::filesystem::path& root);
  // The file for a decoded request path, or nullopt (the caller answers 404).
  std::optional<HttpResponse> serve(const std::string& path) const;

 private:
  std::filesystem::path root_;  // canonical
};

// The content type of a file name, by extension (application/octet-stream if unknown).
std::string content_type_of(const std::filesystem::path& file);

}  // namespace ckptsim::server
