// Entry points of the Beast sessions, with nothing of Beast in them, so the
// listener and `serve` stay light to compile.
#pragma once

#include "gateway/gateway.hpp"

#include <boost/asio/ip/tcp.hpp>

namespace editgate {

// Serves HTTP on an accepted socket; hands /v1/ws upgrades to a WebSocket
// session. The socket's executor must be a strand.
void start_http_session(boost::asio::ip::tcp::socket socket, Gateway& gateway);

}  // namespace editgate
