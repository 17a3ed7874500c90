// The two WebSocket doors: the agents' /v1/ws (agent_socket: the auth
// handshake, then one OpDispatcher per connection) and the pages' /v1/page
// (page_socket). Included only by http_connection.cpp.
#pragma once

#include "services/gateway.hpp"
#include "gateway/net.hpp"

namespace gateway {

// Takes over the stream of an upgrade request that passed the Host and
// Origin checks, and answers the handshake. `dashboard`: the dashboard's
// socket, whose cookie was checked at the upgrade (no auth message), with
// its session's grade (a person's may decide what is the person's).
void start_agent_socket(beast::tcp_stream stream, http::request<http::buffer_body> request, services::Gateway& gateway,
                        std::optional<services::Grade> dashboard = std::nullopt);

// The page door, /v1/page: a page's hello, then its results and events.
// The request passed the Host check and carries an allowed Origin, or names
// another `workspace` in its URL (then the hello is refused, wrong_workspace).
void start_page_socket(beast::tcp_stream stream, http::request<http::buffer_body> request, services::Gateway& gateway,
                       std::string origin, std::string workspace);

}  // namespace gateway
