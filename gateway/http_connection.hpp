// The entry point of the Beast connections, with nothing of Beast in it, so the
// listener and `serve` stay light to compile.
#pragma once

#include "services/gateway.hpp"

namespace mcp {
class McpServer;
}

#include <boost/asio/ip/tcp.hpp>

namespace gateway {

// Serves HTTP on an accepted socket; hands /v1/ws upgrades to a WebSocket
// socket (websockets.hpp). The socket's executor must be a strand.
void start_http_connection(boost::asio::ip::tcp::socket socket, services::Gateway& gateway, mcp::McpServer& mcp);

}  // namespace gateway
