#include "cli/mcp_pool.hpp"

#include <poll.h>

namespace cli::bridge {

namespace {

using namespace std::chrono_literals;

constexpr std::size_t max_idle = 8;  // kept-alive connections waiting for the next call
// Idle connections are dropped well before the gateway closes them
// (--header-timeout, 10 s by default), so a reused one is rarely closed
// under the request it carries.
constexpr auto idle_limit = 5s;

// A pooled connection the gateway has closed (or written to unasked) reads
// as ready: it is not reused.
bool still_open(Conn& c) {
  pollfd p{c.stream.socket().native_handle(), POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace

std::unique_ptr<Conn> Pool::take(unsigned generation) {
  while (!idle_.empty()) {
    std::unique_ptr<Conn> conn = std::move(idle_.back());
    idle_.pop_back();
    if (conn->generation == generation && std::chrono::steady_clock::now() - conn->idle_since < idle_limit &&
        still_open(*conn))
      return conn;
  }
  return nullptr;
}

void Pool::keep(std::unique_ptr<Conn> conn, unsigned generation) {
  if (conn->buffer.size() == 0 && conn->generation == generation && idle_.size() < max_idle) {
    conn->idle_since = std::chrono::steady_clock::now();
    idle_.push_back(std::move(conn));
    return;
  }
  boost::beast::error_code ec;
  conn->stream.socket().close(ec);
}

}  // namespace cli::bridge
