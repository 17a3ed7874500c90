// The bridge's connections to the gateway kept alive between calls: a few,
// for a short while, to the gateway found last only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <memory>
#include <vector>

namespace cli::bridge {

struct Conn {
  explicit Conn(boost::asio::io_context& ioc) : stream(ioc) {}
  boost::beast::tcp_stream stream;
  boost::beast::flat_buffer buffer;
  unsigned generation = 0;  // of the gateway it goes to (cli/mcp_finder.hpp)
  std::chrono::steady_clock::time_point idle_since;
};

class Pool {
 public:
  // A kept connection to gateway `generation` that is still open; null when none.
  std::unique_ptr<Conn> take(unsigned generation);
  // Keeps `conn` when it goes to gateway `generation`, has nothing unread
  // and there is room; else closes it.
  void keep(std::unique_ptr<Conn> conn, unsigned generation);
  void clear() { idle_.clear(); }

 private:
  std::vector<std::unique_ptr<Conn>> idle_;
};

}  // namespace cli::bridge
