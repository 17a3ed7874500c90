#include "mcp/http.hpp"

#include <boost/asio/post.hpp>

namespace mcp {

namespace {

// Proxies that buffer would hold progress back until the end.
const services::HttpHeaders event_headers{{"X-Accel-Buffering", "no"}};

}  // namespace

void McpHttpStream::event(std::string message) {
  // An edit's blocks come as one burst: counted before they are posted.
  if (posted_.load() + http_->unsent_bytes() > unread_progress_max) return;
  posted_ += message.size();
  boost::asio::post(http_->executor(), [self = shared_from_this(), message = std::move(message)] {
    self->posted_ -= message.size();
    if (self->answered_) return;
    if (!self->streaming_) self->http_->begin_stream("text/event-stream", event_headers);
    self->streaming_ = true;
    self->http_->stream("data: " + message + "\n\n");
  });
}

void McpHttpStream::answer(unsigned status, std::string message, std::string session) {
  boost::asio::post(http_->executor(), [self = shared_from_this(), status, message = std::move(message),
                                        session = std::move(session)]() mutable {
    if (self->answered_.exchange(true)) return;
    if (self->streaming_) return self->http_->end_stream(message.empty() ? "" : "data: " + message + "\n\n");
    services::HttpHeaders headers;
    if (!session.empty()) headers.emplace_back("Mcp-Session-Id", std::move(session));
    self->http_->respond(status, "application/json", message.empty() ? "" : message + "\n", headers);
  });
}

void McpHttpStream::drop() {
  boost::asio::post(http_->executor(), [self = shared_from_this()] {
    if (self->answered_.exchange(true)) return;
    if (self->streaming_) return self->http_->end_stream("");
    self->http_->abort();
  });
}

}  // namespace mcp
