#include "sim/server/http_server.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/version.hpp>

namespace ckptsim::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct HttpServer::Shared {
  Shared(asio::io_context& context, Handler h, ServerLimits l, std::string cors)
      : io(context), acceptor(asio::make_strand(context)), handler(std::move(h)), limits(l),
        cors_origin(std::move(cors)) {}
  asio::io_context& io;
  tcp::acceptor acceptor;
  Handler handler;
  ServerLimits limits;
  std::string cors_origin;
  std::atomic<int> connections{0};
  std::atomic<bool> stopping{false};
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<HttpServer::Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    ++shared_->connections;
  }
  ~Session() { --shared_->connections; }

  void start() {
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&Session::read, shared_from_this()));
  }

  // Over the connection cap: one 503 and close.
  void refuse() {
    response_ = make(error_response(503, "Too many connections."), false);
    write();
  }

 private:
  void read() {
    if (shared_->stopping) return close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared_->limits.header_bytes));
    parser_->body_limit(shared_->limits.body_bytes);
    // The first byte may take the idle time; the whole request then the request time. Beast
    // has one timer per stream: the shorter of the two bounds a slow client.
    stream_.expires_after(first_ ? shared_->limits.request_timeout
                                 : shared_->limits.idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    first_ = false;
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
        ec == asio::error::eof)
      return close();
    if (ec) {
      // A request Beast cannot parse: Flink's codec answers 400 and closes; sizes get theirs.
      unsigned status = 400;
      std::string what = "Bad request: " + ec.message() + ".";
      if (ec == http::error::header_limit) {
        status = 431;
        what = "Request header fields too large.";
      } else if (ec == http::error::body_limit) {
        status = 413;
        what = "Request entity too large.";
      }
      response_ = make(error_response(status, what), false);
      return write();
    }
    const auto& req = parser_->get();
    HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    request.body = req.body();
    HttpResponse answer;
    try {
      answer = shared_->handler(request);
    } catch (const std::exception& e) {
      answer = error_response(500, std::string("Internal server error: ") + e.what());
    }
    response_ = make(answer, req.keep_alive() && !shared_->stopping);
    write();
  }

  std::shared_ptr<http::response<http::string_body>> make(const HttpResponse& a,
                                                          bool keep_alive) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(a.status), 11);
    res->set(http::field::content_type, a.content_type);
    if (!shared_->cors_origin.empty())
      res->set(http::field::access_control_allow_origin, shared_->cors_origin);
    if (!a.allow.empty()) res->set(http::field::allow, a.allow);
    res->keep_alive(keep_alive);
    res->body() = a.body;
    res->prepare_payload();
    return res;
  }

  void write() {
    stream_.expires_after(shared_->limits.request_timeout);
    http::async_write(stream_, *response_,
                      beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec || !response_->keep_alive()) return close();
    response_.reset();
    read();
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_;
  std::shared_ptr<HttpServer::Shared> shared_;
  bool first_ = true;
};

void accept(const std::shared_ptr<HttpServer::Shared>& shared) {
  shared->acceptor.async_accept(
      asio::make_strand(shared->io),
      [shared](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || shared->stopping) return;
        if (!ec) {
          auto session = std::make_shared<Session>(std::move(socket), shared);
          if (shared->connections > shared->limits.max_connections)
            session->refuse();
          else
            session->start();
        }
        accept(shared);
      });
}

}  // namespace

HttpServer::HttpServer(asio::io_context& io, const tcp::endpoint& endpoint, Handler handler,
                       ServerLimits limits, std::string cors_origin)
    : shared_(std::make_shared<Shared>(io, std::move(handler), limits, std::move(cors_origin))) {
  shared_->acceptor.open(endpoint.protocol());
  shared_->acceptor.set_option(asio::socket_base::reuse_address(true));
  shared_->acceptor.bind(endpoint);
  shared_->acceptor.listen(asio::socket_base::max_listen_connections);
  accept(shared_);
}

HttpServer::~HttpServer() { stop(); }

unsigned short HttpServer::port() const { return shared_->acceptor.local_endpoint().port(); }

int HttpServer::open_connections() const { return shared_->connections; }

void HttpServer::stop() {
  if (shared_->stopping.exchange(true)) return;
  asio::post(shared_->acceptor.get_executor(), [shared = shared_] {
    beast::error_code ignored;
    shared->acceptor.close(ignored);
  });
}

}  // namespace ckptsim::server
