// Flink's REST API over a run's snapshots: routes a request (with or without the /v1 prefix, as
// RestServerEndpoint registers every handler twice) to the writer that builds the body `ckptsim
// run` writes into rest/, so the files and the live answers never disagree; Flink's error bodies
// ({"errors":[...]}) and status codes for unknown jobs, vertices, checkpoints and paths; the
// savepoint, stop, checkpoint and cancel operations handed to the simulation thread. Knows no
// sockets: the HTTP server calls handle().
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "sim/server/snapshot.hpp"

namespace ckptsim::server {

struct HttpRequest {
  std::string method;  // GET, POST, PATCH, ...
  std::string target;  // path and query, as sent
  std::string body;
};

struct HttpResponse {
  unsigned status = 200;
  std::string content_type = "application/json; charset=UTF-8";  // RestConstants
  std::string body;
  std::string allow;  // 405: the methods the path has
};

// Flink's error body: {"errors":["<message>"]} (ErrorResponseBody).
HttpResponse error_response(unsigned status, const std::string& message);

class RestApi {
 public:
  RestApi(const SnapshotStore& snapshots, RequestQueue& requests);

  // Whether `path` (without query) is one of the API's routes, for any method; the server
  // serves static files (--web-dir) only on other paths.
  static bool is_api_path(const std::string& path);

  HttpResponse handle(const HttpRequest& request) const;

 private:
  HttpResponse get(const Snapshot& s, const std::string& path, const std::string& query) const;
  HttpResponse post(const Snapshot& s, const std::string& path, const std::string& body) const;
  HttpResponse patch(const Snapshot& s, const std::string& path, const std::string& query) const;

  const SnapshotStore& snapshots_;
  RequestQueue& requests_;
  // GET answers of the current snapshot (a snapshot never changes, so neither do they).
  mutable std::mutex memo_mutex_;
  mutable std::shared_ptr<const Snapshot> memo_for_;
  mutable std::unordered_map<std::string, HttpResponse> memo_;
};

}  // namespace ckptsim::server
