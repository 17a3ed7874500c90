// An MCP answer over HTTP: JSON, or an event stream once a notification
// (progress) comes before the response.
#pragma once

#include "services/http_responder.hpp"
#include "mcp/server.hpp"

#include <atomic>
#include <memory>

namespace mcp {

class McpHttpStream final : public McpStream, public std::enable_shared_from_this<McpHttpStream> {
 public:
  explicit McpHttpStream(std::shared_ptr<services::HttpResponder> http) : http_(std::move(http)) {}
  void event(std::string message) override;
  void answer(unsigned status, std::string message, std::string session) override;
  void drop() override;
  // Whether the answer has begun ending: the connection's own reads are its again.
  bool answered() const { return answered_.load(); }

  // A client that reads no progress would have all of it queued: past this
  // much unsent (queued, or on its way to the queue), progress is skipped
  // (the specification lets a server send it or not) until the client has
  // read; the answer is always sent.
  static constexpr std::size_t unread_progress_max = 1u << 20;

 private:
  std::shared_ptr<services::HttpResponder> http_;
  bool streaming_ = false;  // the responder's executor only
  std::atomic<std::size_t> posted_{0};  // bytes of events posted to it, not yet queued
  std::atomic<bool> answered_{false};
};

}  // namespace mcp
