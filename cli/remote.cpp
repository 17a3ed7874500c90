#include "cli/remote.hpp"

#include "services/state_dir.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace cli {

namespace net = boost::asio;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr std::uint64_t max_answer_bytes = 256ull << 20;

// The gateway refused the connection or closed it without an answer. A
// gateway that runs answers every request (shutting_down too), so this is
// one that is stopping or dying: its lock goes a moment after its sockets,
// while the kernel closes its descriptors, and is waited for that long.
services::Failure gone(const std::string& root, const boost::system::error_code& ec, bool asked) {
  for (int i = 0; i < 100; ++i) {
    auto running = services::gateway_running(root);
    if (!running) {
      if (!asked || running.error().code != services::Error::not_found) return running.error();
      return services::Failure{services::Error::not_found, "no gateway is running (the one serving " + root +
                                           " stopped before it answered); start one with `editgate serve`"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return services::Failure{services::Error::io, "the gateway serving " + root +
                                (asked ? " closed the connection without an answer (" : " refuses connections (") +
                                ec.message() + ")"};
}

}  // namespace

services::Result<Answer> call_gateway(const std::string& root, std::string_view method, std::string_view target,
                            const std::string& body) {
  auto published = services::read_published(root);
  if (!published) return published.error();

  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(published->port));
  req.set(http::field::authorization, "Bearer " + published->cookie);
  if (!body.empty()) req.set(http::field::content_type, "application/json");
  req.body() = body;
  req.prepare_payload();

  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  boost::system::error_code ec;
  socket.connect({net::ip::make_address_v4("127.0.0.1"), published->port}, ec);
  if (ec == net::error::connection_refused) return gone(root, ec, false);
  if (ec)
    return services::Failure{services::Error::io, "cannot reach the gateway serving " + root + " on port " +
                                  std::to_string(published->port) + " (" + ec.message() + ")"};
  http::write(socket, req, ec);
  // A gateway may answer and close before it reads the whole body.
  if (ec && ec != net::error::broken_pipe && ec != net::error::connection_reset) return gone(root, ec, true);

  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_answer_bytes);
  http::read(socket, buffer, parser, ec);
  if (ec == http::error::body_limit)
    return services::Failure{services::Error::payload_too_large, "the gateway's answer is over 256 MiB"};
  if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
      ec == net::error::connection_reset)
    return gone(root, ec, true);
  if (ec)
    return services::Failure{services::Error::io, "the answer on port " + std::to_string(published->port) + " is not HTTP (" +
                                  ec.message() + ")"};
  const auto& res = parser.get();
  boost::system::error_code jec;
  json::value v = json::parse(res.body(), jec);
  if (jec || !v.is_object()) {
    std::string shown = res.body().substr(0, 200);
    for (char& c : shown)
      if (c == '\n' || c == '\r') c = ' ';
    return services::Failure{services::Error::bad_json, "the gateway's answer is not a JSON object (HTTP " +
                                        std::to_string(res.result_int()) + ", " +
                                        (shown.empty() ? std::string("an empty body") : "'" + shown + "'") + ")"};
  }
  return Answer{res.result_int(), std::move(v.get_object())};
}

}  // namespace cli
