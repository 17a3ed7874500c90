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

 private:
  std::shared_ptr<services::HttpResponder> http_;
  bool streaming_ = false;  // the responder's executor only
  std::atomic<bool> answered_{false};
};

}  // namespace mcp
