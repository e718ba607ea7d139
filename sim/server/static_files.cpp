#include "sim/server/static_files.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <system_error>

#include "sim/server/url.hpp"

namespace ckptsim::server {

namespace fs = std::filesystem;

namespace {
constexpr std::uintmax_t kMaxFileBytes = 64u << 20;  // a dashboard's largest bundle is ~5 MB
}

std::string content_type_of(const fs::path& file) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=UTF-8"},  {".htm", "text/html; charset=UTF-8"},
      {".js", "application/javascript"},      {".mjs", "application/javascript"},
      {".css", "text/css"},                   {".json", "application/json; charset=UTF-8"},
      {".map", "application/json"},           {".svg", "image/svg+xml"},
      {".png", "image/png"},                  {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},                {".gif", "image/gif"},
      {".ico", "image/x-icon"},               {".woff", "font/woff"},
      {".woff2", "font/woff2"},               {".ttf", "font/ttf"},
      {".eot", "application/vnd.ms-fontobject"}, {".txt", "text/plain; charset=UTF-8"},
      {".wasm", "application/wasm"}};
  const auto it = types.find(file.extension().string());
  return it == types.end() ? "application/octet-stream" : it->second;
}

StaticFiles::StaticFiles(const fs::path& root) {
  std::error_code ec;
  root_ = fs::canonical(root, ec);
  if (ec || !fs::is_directory(root_, ec))
    throw std::runtime_error(root.string() + ": --web-dir must name a directory");
}

std::optional<HttpResponse> StaticFiles::serve(const std::string& path) const {
  fs::path relative;
  for (const std::string& segment : split_path(path)) {
    // Only plain names: no "..", ".", hidden files or separators smuggled in by decoding.
    if (segment.empty() || segment[0] == '.' || segment.find('\\') != std::string::npos ||
        segment.find('/') != std::string::npos)
      return std::nullopt;
    relative /= segment;
  }
  std::error_code ec;
  fs::path file = root_ / relative;
  if (fs::is_directory(file, ec)) file /= "index.html";
  const fs::path real = fs::canonical(file, ec);
  if (ec) return std::nullopt;
  // A symbolic link may not lead out of the directory.
  const auto [root_end, unused] = std::mismatch(root_.begin(), root_.end(), real.begin(), real.end());
  (void)unused;
  if (root_end != root_.end()) return std::nullopt;
  if (!fs::is_regular_file(real, ec) || fs::file_size(real, ec) > kMaxFileBytes || ec)
    return std::nullopt;
  std::ifstream in(real, std::ios::binary);
  if (!in) return std::nullopt;
  HttpResponse r;
  r.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  r.content_type = content_type_of(real);
  return r;
}

}  // namespace ckptsim::server
