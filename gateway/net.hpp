// The namespace aliases of Beast's examples. Only the connection files include
// this: each Beast translation unit costs half a minute to compile.
#pragma once

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <string_view>
#include <vector>

namespace gateway {
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Every Cookie header of a request, in order: a client may send several,
// and the dashboard's session may be in any of them.
template <class Fields>
std::vector<std::string_view> cookie_headers(const Fields& fields) {
  std::vector<std::string_view> all;
  for (auto [it, end] = fields.equal_range(http::field::cookie); it != end; ++it) all.push_back(it->value());
  return all;
}
}  // namespace gateway
