// A small synchronous Beast HTTP client and a ckptsim serve process for the server tests.
#pragma once

#include <utility>  // before Asio (ARCHITECTURE.md)

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ckptsim::tests {

struct HttpAnswer {
  unsigned status = 0;
  std::string body;
  std::string content_type;
  std::string allow;
  bool keep_alive = false;
};

inline HttpAnswer http(unsigned short port, const std::string& method, const std::string& target,
                       const std::string& body = "") {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  http::request<http::string_body> req(http::string_to_verb(method), target, 11);
  req.set(http::field::host, "127.0.0.1");
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  HttpAnswer a;
  a.status = res.result_int();
  a.body = res.body();
  a.content_type = std::string(res[http::field::content_type]);
  a.allow = std::string(res[http::field::allow]);
  a.keep_alive = res.keep_alive();
  beast::error_code ignored;
  stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
  return a;
}

// `ckptsim serve ARGS --port 0` in a child process; the port read from its first log line.
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args) {
    log_ = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
           "/ckptsim-serve-" + std::to_string(::getpid()) + "-" + std::to_string(++count()) +
           ".log";
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(log_.c_str(), "w", stderr);
      std::vector<std::string> all = {CKPTSIM_BINARY, "serve", "--port", "0"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (std::string& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      std::_Exit(127);
    }
    const std::regex listening(R"(listening on http://[^:]+:(\d+))");
    for (int i = 0; i < 500 && port_ == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::smatch m;
      const std::string text = log();
      if (std::regex_search(text, m, listening)) port_ = static_cast<unsigned short>(std::stoi(m[1]));
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !stopped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::remove(log_.c_str());
  }
  unsigned short port() const { return port_; }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // SIGTERM, then the exit status (-1 if it did not exit within 10 s).
  int terminate() {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        stopped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  static int& count() {
    static int n = 0;
    return n;
  }
  pid_t pid_ = -1;
  unsigned short port_ = 0;
  std::string log_;
  bool stopped_ = false;
};

}  // namespace ckptsim::tests
