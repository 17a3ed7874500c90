// The agents' WebSocket door. Messages are read in pieces of bounded size,
// so an oversized one is discarded as it arrives and answered with an
// error while the connection lives on. Before the auth message nothing but
// the handshake exists: no OpSession, no engine work.
#include "gateway/websocket_session.hpp"

#include "gateway/history.hpp"
#include "gateway/ops.hpp"

#include <boost/json.hpp>

#include <deque>

namespace editgate {

namespace {

constexpr std::size_t read_piece = 64 * 1024;

class websocket_session : public Stoppable, public std::enable_shared_from_this<websocket_session> {
 public:
  websocket_session(beast::tcp_stream&& stream, Gateway& gateway)
      : ws_(std::move(stream)), gw_(gateway), auth_timer_(ws_.get_executor()) {}

  ~websocket_session() override { gw_.leave(); }

  void run(http::request<http::buffer_body> req) {
    gw_.join(weak_from_this());
    beast::get_lowest_layer(ws_).expires_never();  // the websocket stream has its own timeouts
    websocket::stream_base::timeout t{};
    t.handshake_timeout = std::chrono::seconds(10);
    t.idle_timeout = gw_.limits().ws_idle_timeout;
    t.keep_alive_pings = true;  // a live client answers pings, however long it stays silent
    ws_.set_option(t);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "editgate"); }));
    ws_.read_message_max(0);  // bounded per message below, piece by piece
    ws_.async_accept(req, beast::bind_front_handler(&websocket_session::on_accept, shared_from_this()));
  }

  void stop() override {
    net::post(ws_.get_executor(), [self = shared_from_this()] { self->shut(Error::shutting_down); });
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;
    send(R"({"op":"auth-required"})");
    auth_timer_.expires_after(gw_.limits().auth_timeout);
    auth_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->ops_ || self->closing_) return;
      self->refuse_auth(Failure{Error::timeout, "no auth message within " +
                                                    std::to_string(self->gw_.limits().auth_timeout.count()) + " ms"});
    });
    if (gw_.stopping()) return shut(Error::shutting_down);
    do_read();
  }

  void do_read() {
    ws_.async_read_some(buffer_.prepare(read_piece),
                        beast::bind_front_handler(&websocket_session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t n) {
    if (ec) {
      // Closed by the peer, cut off, or timed out: open streams commit what they applied.
      auth_timer_.cancel();
      if (ops_) ops_->end(Error::io, false);
      return;
    }
    buffer_.commit(n);
    const std::size_t limit = ops_ ? gw_.limits().ws_message_bytes : gw_.limits().auth_message_bytes;
    message_bytes_ += n;
    if (message_bytes_ > limit) {
      too_big_ = true;
      buffer_.consume(buffer_.size());
    }
    if (!ws_.is_message_done()) return do_read();

    const bool too_big = std::exchange(too_big_, false);
    const std::size_t size = std::exchange(message_bytes_, 0);
    std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    if (closing_) return;
    if (!ops_) {
      if (too_big) return refuse_auth(Failure{Error::payload_too_large, "the auth message is over " +
                                                                          std::to_string(limit) + " bytes"});
      return authenticate(text);
    }
    if (too_big)
      ops_->refuse(Error::payload_too_large, "the message is " + std::to_string(size) + " bytes; the limit is " +
                                                 std::to_string(limit) + " (stream large edits with edit-chunk)");
    else if (!ws_.got_text())
      ops_->refuse(Error::bad_json, "messages are JSON in text frames, not binary");
    else
      ops_->handle(text);
    do_read();
  }

  void authenticate(const std::string& text) {
    auto ok = check_auth(text, gw_.cookie());
    if (!ok) return refuse_auth(ok.error());
    auth_timer_.cancel();
    send(R"({"type":"auth_ok"})");
    // A weak reference: the OpSession lives inside this session, and must
    // not keep it alive once its connection is gone.
    ops_ = std::make_shared<OpSession>(gw_, ws_.get_executor(), new_session_id(),
                                       [weak = weak_from_this()](std::string msg) {
                                         if (auto self = weak.lock()) self->send(std::move(msg));
                                       });
    send(boost::json::serialize(boost::json::object{{"op", "session-started"}, {"session", ops_->id()}}));
    do_read();
  }

  void refuse_auth(const Failure& f) {
    send(boost::json::serialize(boost::json::object{
        {"type", "auth_error"}, {"reason", to_string(f.code)}, {"message", f.message}}));
    close_after_writes(websocket::close_code::policy_error, "auth_error");
  }

  // The gateway stops: open streams are committed and reported, then the close.
  void shut(Error why) {
    if (closing_) return;
    auto self = shared_from_this();
    if (!ops_) return close_after_writes(websocket::close_code::going_away, "editgate is stopping");
    ops_->end(why, true, [self] { self->close_after_writes(websocket::close_code::going_away, "editgate is stopping"); });
  }

  void send(std::string msg) {
    if (closed_) return;
    queue_.push_back(std::move(msg));
    if (queue_.size() == 1) do_write();
  }

  void do_write() {
    ws_.text(true);
    ws_.async_write(net::buffer(queue_.front()),
                    beast::bind_front_handler(&websocket_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) {
      queue_.clear();
      closed_ = true;
      return;
    }
    queue_.pop_front();
    if (!queue_.empty()) return do_write();
    if (closing_) do_close();
  }

  void close_after_writes(websocket::close_code code, const char* reason) {
    if (closing_) return;
    closing_ = true;
    close_reason_ = websocket::close_reason(code, reason);
    if (queue_.empty()) do_close();
  }

  void do_close() {
    if (closed_) return;
    closed_ = true;
    ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code) {});
  }

  websocket::stream<beast::tcp_stream> ws_;
  Gateway& gw_;
  net::steady_timer auth_timer_;
  beast::flat_buffer buffer_;
  std::size_t message_bytes_ = 0;
  bool too_big_ = false;
  std::shared_ptr<OpSession> ops_;
  std::deque<std::string> queue_;
  bool closing_ = false;  // a close follows the queued messages
  bool closed_ = false;   // no more writes
  websocket::close_reason close_reason_;
};

}  // namespace

void start_websocket_session(beast::tcp_stream stream, http::request<http::buffer_body> request, Gateway& gateway) {
  std::make_shared<websocket_session>(std::move(stream), gateway)->run(std::move(request));
}

}  // namespace editgate
