// How `editgate mcp` finds the gateway serving its workspace: the address
// and cookie it published, read again until it is there, starting one in
// the background when none runs (cli/mcp_launch.hpp). Asio's timer only; no
// Beast here.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace cli::bridge {

// A gateway found. `generation` tells apart the gateways found one after
// the other, so a connection to an earlier one is not reused.
struct Endpoint {
  unsigned short port = 0;
  std::string authorization;  // the Authorization header's value
  std::string host;
  unsigned generation = 0;
};

class GatewayFinder {
 public:
  using Ready = std::function<void(const Endpoint&)>;
  using Failed = std::function<void(const std::string& message)>;

  // `refusal`: why there is no workspace to serve; every search fails with
  // it, and nothing is started. `port`: of a gateway started here.
  GatewayFinder(boost::asio::io_context& ioc, std::string root, std::string refusal, std::optional<unsigned short> port,
                std::ostream& err, Ready ready, Failed failed)
      : root_(std::move(root)), refusal_(std::move(refusal)), port_(port), err_(err), ready_(std::move(ready)),
        failed_(std::move(failed)), timer_(ioc) {}

  // Starts a search unless one is under way; it ends in `ready` or `failed`.
  void find();
  // No search goes on after this (the bridge is stopping).
  void stop();

 private:
  void poll();
  void ready(unsigned short port, const std::string& cookie);
  void failed(const std::string& message);

  std::string root_;
  std::string refusal_;
  std::optional<unsigned short> port_;
  std::ostream& err_;
  Ready ready_;
  Failed failed_;
  boost::asio::steady_timer timer_;
  bool finding_ = false;
  bool started_ = false;  // by this search
  bool stopped_ = false;
  pid_t child_ = -1;      // the gateway started last, if any
  unsigned generation_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace cli::bridge
