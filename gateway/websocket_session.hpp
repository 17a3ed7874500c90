// The agents' WebSocket door, /v1/ws: the auth handshake, then one
// OpDispatcher per connection. Included only by http_session.cpp.
#pragma once

#include "gateway/gateway.hpp"
#include "gateway/net.hpp"

namespace editgate {

// Takes over the stream of an upgrade request that passed the Host and
// Origin checks, and answers the handshake.
void start_websocket_session(beast::tcp_stream stream, http::request<http::buffer_body> request, Gateway& gateway);

// The page door, /v1/page: a page's hello, then its results and events.
// The request passed the Host check and carries an allowed Origin.
void start_page_session(beast::tcp_stream stream, http::request<http::buffer_body> request, Gateway& gateway,
                        std::string origin);

}  // namespace editgate
