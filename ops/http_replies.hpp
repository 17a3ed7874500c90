// The HTTP door's replies to an op, written on its connection through
// services::HttpResponder, so they stay out of the Beast translation unit.
#pragma once

#include "services/http_responder.hpp"
#include "services/replies.hpp"

#include <functional>
#include <memory>
#include <optional>

namespace ops {

// An op route's answer: the final reply as a JSON object with "status":"ok"
// or the error, with the HTTP status of its code. With `gather` (an op that
// streams) what it sent meanwhile is gathered in "out".
std::shared_ptr<services::Replies> json_replies(std::shared_ptr<services::HttpResponder> http, bool gather);

// A streamed route's answer (POST /v1/edits): once begin() sent the head
// (200, application/x-ndjson), each reply is a line, the final one with
// its status flags as on the WebSocket (mark_final); a refusal before that
// is the JSON error with its code's status. `ended` runs at the final reply.
class NdjsonReplies final : public services::Replies {
 public:
  NdjsonReplies(std::shared_ptr<services::HttpResponder> http, std::function<void()> ended)
      : http_(std::move(http)), ended_(std::move(ended)) {}
  void begin();
  boost::asio::any_io_executor executor() const override { return http_->executor(); }
  void part(boost::json::object body) override;
  void done(boost::json::object body) override;
  void fail(services::Failure failure, boost::json::object body) override;

 private:
  void fail_or_done(boost::json::object body, std::optional<services::Failure> failure);
  std::shared_ptr<services::HttpResponder> http_;
  std::function<void()> ended_;
  bool begun_ = false;
};

}  // namespace ops
