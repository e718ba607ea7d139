// The HTTP/1.1 side of `ckptsim serve`, on Boost.Asio/Beast: keep-alive, header and body size
// limits, a connection cap, idle and slow-client timeouts; a malformed request is answered 400
// (431, 413 for sizes) and the connection closed. What to answer is the handler's business.
#pragma once

// Boost 1.74's Asio uses std::exchange without <utility> under C++20 (ARCHITECTURE.md).
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "sim/server/rest_api.hpp"

namespace ckptsim::server {

struct ServerLimits {
  std::size_t header_bytes = 16 * 1024;        // request line and headers
  std::size_t body_bytes = 1024 * 1024;        // a request body
  int max_connections = 1024;                  // more are answered 503 and closed
  std::chrono::seconds idle_timeout{60};       // a keep-alive connection with no request
  std::chrono::seconds request_timeout{10};    // a request must arrive whole within this
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  // Listens on `endpoint` (port 0: any free port, see port()); throws boost::system::system_error
  // when it cannot bind.
  HttpServer(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& endpoint,
             Handler handler, ServerLimits limits, std::string cors_origin);
  ~HttpServer();

  unsigned short port() const;
  int open_connections() const;
  // Stops accepting; open connections finish the response they are writing and close.
  void stop();

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace ckptsim::server
