#include "tests/client.hpp"

#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <functional>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef EDITGATE_BIN
#define EDITGATE_BIN "editgate"
#endif

namespace client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Runs the operations started by `start` to completion on `ioc`.
template <class Start>
void drive(net::io_context& ioc, Start start) {
  ioc.restart();
  start();
  ioc.run();
}

void check(beast::error_code ec, const char* what) {
  if (ec) throw std::runtime_error(std::string(what) + ": " + ec.message());
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

tcp::endpoint local(unsigned short port) { return {net::ip::make_address("127.0.0.1"), port}; }

std::string host_of(unsigned short port, const std::map<std::string, std::string>& headers) {
  auto it = headers.find("Host");
  return it != headers.end() ? it->second : "127.0.0.1:" + std::to_string(port);
}

}  // namespace

// ---- the gateway process ----------------------------------------------------

namespace {
std::string& editgate_binary() {
  static std::string path = EDITGATE_BIN;
  return path;
}
}  // namespace

void use_editgate(std::string path) { editgate_binary() = std::move(path); }

Gateway::Gateway(const std::string& root, std::vector<std::string> extra, bool node) : root_(root) {
  char tmpl[] = "/tmp/editgate-gw-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp");
  ::close(fd);
  log_ = tmpl;
  std::vector<std::string> args = {editgate_binary(), "serve", "--root", root};
  // Any free port, unless the test names one.
  if (std::find(extra.begin(), extra.end(), "--port") == extra.end()) args.insert(args.end(), {"--port", "0"});
  args.insert(args.end(), extra.begin(), extra.end());
  if (!node) args.push_back("--no-node");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    int out = ::open((log_ + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open((log_ + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  auto until = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("editgate serve exited: " + err());
    }
    auto published = services::read_published(root);
    if (published) {
      port_ = published->port;
      cookie_ = published->cookie;
      if (auto places = services::places_of(root)) workspace_ = places->id;
      return;
    }
    std::this_thread::sleep_for(10ms);
  }
  stop(SIGKILL);
  throw std::runtime_error("editgate serve did not publish its port");
}

Gateway::~Gateway() {
  if (pid_ > 0) stop();
  ::unlink(log_.c_str());
  ::unlink((log_ + ".out").c_str());
  ::unlink((log_ + ".err").c_str());
}

int Gateway::wait(std::chrono::milliseconds wait) {
  if (pid_ <= 0) return -1;
  auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(5ms);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

int Gateway::stop(int sig, std::chrono::milliseconds wait_for) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, sig);
  return wait(wait_for);
}

std::string Gateway::out() const { return slurp(log_ + ".out"); }
std::string Gateway::err() const { return slurp(log_ + ".err"); }

// ---- plain requests -----------------------------------------------------------

Response request(unsigned short port, const std::string& method, const std::string& target, const std::string& body,
                 const std::map<std::string, std::string>& headers) {
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, host_of(port, headers));
  for (const auto& [k, v] : headers)
    if (k != "Host") req.set(k, v);
  req.body() = body;
  if (!body.empty() || method == "POST") req.prepare_payload();
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  beast::error_code result;
  stream.expires_after(10s);
  drive(ioc, [&] {
    stream.async_connect(local(port), [&](beast::error_code ec) {
      if (ec) return void(result = ec);
      http::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
        // A server may answer and close before it reads the whole body.
        if (ec && ec != net::error::broken_pipe && ec != net::error::connection_reset) return void(result = ec);
        http::async_read(stream, buffer, res, [&](beast::error_code ec, std::size_t) { result = ec; });
      });
    });
  });
  check(result, "request");
  Response r;
  r.status = res.result_int();
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = std::string(f.value());
  }
  r.body = res.body();
  return r;
}

std::string raw(unsigned short port, const std::string& bytes, std::chrono::milliseconds wait) {
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(wait);
  std::string got;
  std::array<char, 4096> buf{};
  std::function<void()> read_more = [&] {
    stream.async_read_some(net::buffer(buf), [&](beast::error_code ec, std::size_t n) {
      got.append(buf.data(), n);
      if (!ec) read_more();
    });
  };
  drive(ioc, [&] {
    stream.async_connect(local(port), [&](beast::error_code ec) {
      if (ec) return;
      net::async_write(stream, net::buffer(bytes), [&](beast::error_code ec, std::size_t) {
        if (ec) return;
        read_more();
      });
    });
  });
  return got;
}

Idle::Idle(unsigned short port, int n) {
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("connect failed");
    }
    fds_.push_back(fd);
  }
}

Idle::~Idle() {
  for (int fd : fds_) ::close(fd);
}

// ---- streamed edits ---------------------------------------------------------------

struct EditStream::Impl {
  net::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  std::array<char, 8192> body{};
  bool head = false;
  bool done = false;
  std::string pending;

  void read_head() {
    if (head) return;
    beast::error_code result;
    stream.expires_after(10s);
    drive(ioc, [&] {
      http::async_read_header(stream, buffer, parser, [&](beast::error_code ec, std::size_t) { result = ec; });
    });
    check(result, "reading the response head");
    head = true;
    done = parser.is_done();
  }
};

EditStream::EditStream(unsigned short port, const std::string& cookie, const std::string& query,
                       const std::map<std::string, std::string>& headers)
    : impl_(new Impl) {
  http::request<http::empty_body> req{http::verb::post, "/v1/edits" + query, 11};
  req.set(http::field::host, host_of(port, headers));
  if (!cookie.empty()) req.set(http::field::authorization, "Bearer " + cookie);
  for (const auto& [k, v] : headers)
    if (k != "Host") req.set(k, v);
  req.chunked(true);
  impl_->parser.body_limit(boost::none);
  http::request_serializer<http::empty_body> sr{req};
  beast::error_code result;
  impl_->stream.expires_after(10s);
  drive(impl_->ioc, [&] {
    impl_->stream.async_connect(local(port), [&](beast::error_code ec) {
      if (ec) return void(result = ec);
      impl_->stream.socket().set_option(tcp::no_delay(true));
      http::async_write_header(impl_->stream, sr, [&](beast::error_code ec, std::size_t) { result = ec; });
    });
  });
  check(result, "sending the request head");
}

EditStream::~EditStream() = default;

void EditStream::send(const std::string& piece) {
  if (piece.empty()) return;  // an empty chunk would end the body
  beast::error_code result;
  impl_->stream.expires_after(10s);
  drive(impl_->ioc, [&] {
    net::async_write(impl_->stream, http::make_chunk(net::buffer(piece)),
                     [&](beast::error_code ec, std::size_t) { result = ec; });
  });
  check(result, "sending a chunk");
}

void EditStream::end() {
  beast::error_code result;
  impl_->stream.expires_after(10s);
  drive(impl_->ioc, [&] {
    net::async_write(impl_->stream, http::make_chunk_last(), [&](beast::error_code ec, std::size_t) { result = ec; });
  });
  check(result, "sending the last chunk");
}

unsigned EditStream::status() {
  impl_->read_head();
  return impl_->parser.get().result_int();
}

std::optional<std::string> EditStream::line(std::chrono::milliseconds wait) {
  impl_->read_head();
  for (;;) {
    if (std::size_t nl = impl_->pending.find('\n'); nl != std::string::npos) {
      std::string l = impl_->pending.substr(0, nl);
      impl_->pending.erase(0, nl + 1);
      return l;
    }
    if (impl_->done) {
      if (impl_->pending.empty()) return std::nullopt;
      return std::exchange(impl_->pending, {});
    }
    auto& p = impl_->parser;
    p.get().body().data = impl_->body.data();
    p.get().body().size = impl_->body.size();
    beast::error_code result;
    impl_->stream.expires_after(wait);
    drive(impl_->ioc, [&] {
      http::async_read_some(impl_->stream, impl_->buffer, p, [&](beast::error_code ec, std::size_t) { result = ec; });
    });
    if (result == http::error::need_buffer) result = {};
    impl_->pending.append(impl_->body.data(), impl_->body.size() - p.get().body().size);
    if (result == http::error::end_of_stream || result == net::error::eof || p.is_done()) impl_->done = true;
    else check(result, "reading the response");
  }
}

std::vector<std::string> EditStream::rest() {
  std::vector<std::string> out;
  while (auto l = line()) out.push_back(*l);
  return out;
}

bool EditStream::closed_by_server(std::chrono::milliseconds wait) {
  std::array<char, 64> more{};
  beast::error_code result;
  std::size_t got = 0;
  impl_->stream.expires_after(wait);
  drive(impl_->ioc, [&] {
    impl_->stream.async_read_some(net::buffer(more), [&](beast::error_code ec, std::size_t n) {
      result = ec;
      got = n;
    });
  });
  return got == 0 && (result == net::error::eof || result == net::error::connection_reset);
}

void EditStream::abort() {
  beast::error_code ignored;
  impl_->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  impl_->stream.close();
}

// ---- WebSocket -----------------------------------------------------------------

struct Ws::Impl {
  net::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  beast::flat_buffer buffer;
};

namespace {

beast::error_code ws_connect(net::io_context& ioc, websocket::stream<beast::tcp_stream>& ws, unsigned short port,
                             const std::map<std::string, std::string>& headers, websocket::response_type* res,
                             const std::string& target) {
  ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
    for (const auto& [k, v] : headers)
      if (k != "Host") req.set(k, v);
  }));
  beast::error_code result;
  beast::get_lowest_layer(ws).expires_after(10s);
  websocket::response_type ignored;
  drive(ioc, [&] {
    beast::get_lowest_layer(ws).async_connect(local(port), [&](beast::error_code ec) {
      if (ec) return void(result = ec);
      beast::get_lowest_layer(ws).socket().set_option(tcp::no_delay(true));
      ws.async_handshake(res ? *res : ignored, host_of(port, headers), target,
                         [&](beast::error_code ec) { result = ec; });
    });
  });
  return result;
}

}  // namespace

Ws::Ws(unsigned short port, const std::map<std::string, std::string>& headers, const std::string& target)
    : impl_(new Impl) {
  check(ws_connect(impl_->ioc, impl_->ws, port, headers, nullptr, target), "WebSocket handshake");
}

Ws::~Ws() = default;

std::string Ws::login(const std::string& cookie) {
  auto first = read();
  if (!first || first->find("auth-required") == std::string::npos)
    throw std::runtime_error("expected auth-required, got " + first.value_or("(closed)"));
  send(boost::json::serialize(boost::json::object{{"type", "auth"}, {"cookie", cookie}}));
  auto ok = read();
  if (!ok || ok->find("auth_ok") == std::string::npos) throw std::runtime_error("auth failed: " + ok.value_or("(closed)"));
  auto started = read();
  const std::string key = R"("session":")";
  std::size_t at = started ? started->find(key) : std::string::npos;
  if (at == std::string::npos) throw std::runtime_error("expected session-started, got " + started.value_or("(closed)"));
  return started->substr(at + key.size(), started->find('"', at + key.size()) - at - key.size());
}

void Ws::send(const std::string& text, bool binary) {
  beast::error_code result;
  impl_->ws.binary(binary);
  beast::get_lowest_layer(impl_->ws).expires_after(10s);
  drive(impl_->ioc, [&] {
    impl_->ws.async_write(net::buffer(text), [&](beast::error_code ec, std::size_t) { result = ec; });
  });
  check(result, "WebSocket write");
}

std::optional<std::string> Ws::read(std::chrono::milliseconds wait) {
  beast::error_code result;
  beast::get_lowest_layer(impl_->ws).expires_after(wait);
  drive(impl_->ioc, [&] {
    impl_->ws.async_read(impl_->buffer, [&](beast::error_code ec, std::size_t) { result = ec; });
  });
  if (result == websocket::error::closed || result == net::error::eof || result == net::error::connection_reset)
    return std::nullopt;
  check(result, "WebSocket read");
  std::string msg = beast::buffers_to_string(impl_->buffer.data());
  impl_->buffer.consume(impl_->buffer.size());
  return msg;
}

std::vector<std::string> Ws::until_done(std::chrono::milliseconds wait) {
  std::vector<std::string> out;
  while (auto m = read(wait)) {
    out.push_back(*m);
    if (m->find("\"status\":[\"done") != std::string::npos) break;
  }
  return out;
}

bool Ws::writable(std::chrono::milliseconds wait) {
  pollfd p{beast::get_lowest_layer(impl_->ws).socket().native_handle(), POLLOUT, 0};
  return ::poll(&p, 1, static_cast<int>(wait.count())) == 1 && (p.revents & POLLOUT);
}

bool Ws::readable() const {
  pollfd p{beast::get_lowest_layer(impl_->ws).socket().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

std::string Ws::close_reason() const { const auto& r = impl_->ws.reason().reason;
  return std::string(r.data(), r.size()); }

void Ws::close() {
  beast::error_code result;
  beast::get_lowest_layer(impl_->ws).expires_after(10s);
  drive(impl_->ioc, [&] { impl_->ws.async_close(websocket::close_code::normal, [&](beast::error_code ec) { result = ec; }); });
}

unsigned ws_refused_status(unsigned short port, const std::map<std::string, std::string>& headers,
                           const std::string& target) {
  net::io_context ioc;
  websocket::stream<beast::tcp_stream> ws(ioc);
  websocket::response_type res;
  auto ec = ws_connect(ioc, ws, port, headers, &res, target);
  if (!ec) return 101;
  return res.result_int();
}

}  // namespace client
