// The agents' WebSocket door. Messages are read in pieces of bounded size,
// so an oversized one is discarded as it arrives and answered with an
// error while the connection lives on. Before the auth message nothing but
// the handshake exists: no OpDispatcher, no worker work. Replies wait in one
// write queue of bounded size: a client that does not read them stops
// being read (backpressure), and one that lets them pile up past the cap
// is closed with slow_client.
#include "gateway/websockets.hpp"

#include "editproto/unicode.hpp"
#include "record/commit_messages.hpp"
#include "ops/dispatcher.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

#include <deque>

namespace gateway {

namespace {

constexpr std::size_t read_piece = 64 * 1024;
// A close for a client that left its replies unread must get out within
// this, or the socket is cut: one that reads nothing cannot take it.
constexpr std::chrono::seconds close_within{30};

class agent_socket : public services::Stoppable, public std::enable_shared_from_this<agent_socket> {
 public:
  // `dashboard`: a signed-in dashboard, authenticated by its cookie at the
  // handshake: no auth message; a person's session may call the person's ops.
  agent_socket(beast::tcp_stream&& stream, services::Gateway& gateway, std::optional<services::Grade> dashboard)
      : ws_(std::move(stream)), gw_(gateway), auth_timer_(ws_.get_executor()), cut_timer_(ws_.get_executor()),
        dashboard_(dashboard) {}

  ~agent_socket() override { gw_.leave(); }

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
    ws_.async_accept(req, beast::bind_front_handler(&agent_socket::on_accept, shared_from_this()));
  }

  void stop() override {
    net::post(ws_.get_executor(), [self = shared_from_this()] { self->shut(services::Error::shutting_down); });
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;
    if (dashboard_) {
      if (gw_.stopping()) return shut(services::Error::shutting_down);
      return authenticated("");
    }
    send(R"({"op":"auth-required"})");
    auth_timer_.expires_after(gw_.limits().auth_timeout);
    auth_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->ops_ || self->closing_) return;
      self->refuse_auth(services::Failure{services::Error::request_timeout, "no auth message within " +
                                                            std::to_string(self->gw_.limits().auth_timeout.count()) +
                                                            " ms"});
    });
    if (gw_.stopping()) return shut(services::Error::shutting_down);
    do_read();
  }

  // With too many replies unread, the next message waits: what the client
  // sends stays in its socket until the queue drains (on_write resumes).
  void do_read() {
    if (queued_bytes_ > gw_.limits().ws_queue_high) {
      paused_ = true;
      return;
    }
    ws_.async_read_some(buffer_.prepare(read_piece),
                        beast::bind_front_handler(&agent_socket::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t n) {
    if (ec) {
      // Closed by the peer, cut off, or timed out: open streams commit what they applied.
      auth_timer_.cancel();
      if (ops_) ops_->end(services::Error::io, false);
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
      if (too_big) return refuse_auth(services::Failure{services::Error::payload_too_large, "the auth message is over " +
                                                                          std::to_string(limit) + " bytes"});
      return authenticate(text);
    }
    if (too_big)
      ops_->refuse(services::Error::payload_too_large, "the message is " + std::to_string(size) + " bytes; the limit is " +
                                                 std::to_string(limit) + " (stream large edits with edit-chunk)");
    else if (!ws_.got_text())
      ops_->refuse(services::Error::bad_json, "messages are JSON in text frames, not binary");
    else
      ops_->handle(text);
    do_read();
  }

  void authenticate(const std::string& text) {
    auto ok = ops::check_auth(text, gw_.cookie());
    if (!ok) return refuse_auth(ok.error());
    authenticated(*ok);
  }

  void authenticated(const std::string& resume) {
    auth_timer_.cancel();
    // A weak reference: the OpDispatcher lives inside this socket, and must
    // not keep it alive once its connection is gone.
    auto ops = std::make_shared<ops::OpDispatcher>(gw_, ws_.get_executor(), record::new_session_id(),
                                              [weak = weak_from_this()](std::string msg) {
                                                if (auto self = weak.lock()) self->send(std::move(msg));
                                              },
                                              dashboard_);
    auto started = ops->start_session(resume);
    if (!started) return refuse_auth(started.error());
    ops_ = std::move(ops);
    send(R"({"type":"auth_ok"})");
    send(boost::json::serialize(*started));
    do_read();
  }

  void refuse_auth(const services::Failure& f) {
    send(boost::json::serialize(boost::json::object{
        {"type", "auth_error"}, {"reason", to_string(f.code)}, {"message", f.message}}));
    close_after_writes(websocket::close_code::policy_error, "auth_error");
  }

  // The gateway stops: open streams are committed and reported, then the close.
  void shut(services::Error why) {
    if (closing_) return;
    auto self = shared_from_this();
    if (!ops_) return close_after_writes(websocket::close_code::going_away, "editgate is stopping");
    ops_->end(why, true, [self] { self->close_after_writes(websocket::close_code::going_away, "editgate is stopping"); });
  }

  void send(std::string msg) {
    if (closed_ || overflowed_) return;
    queued_bytes_ += msg.size();
    queue_.push_back(std::move(msg));
    if (queued_bytes_ > gw_.limits().ws_queue_max) return overflow();
    if (queue_.size() == 1) do_write();
  }

  // Replies of requests already read went past the cap: the ones not on
  // the wire yet are dropped, open streams commit what they applied, and
  // the connection closes with slow_client. A client that reads nothing at
  // all cannot take even the close frame: then the socket is cut.
  void overflow() {
    overflowed_ = true;
    // The front is on the wire, unless the message that overflowed is alone.
    const bool writing = queue_.size() > 1;
    queue_.erase(queue_.begin() + (writing ? 1 : 0), queue_.end());
    queued_bytes_ = writing ? queue_.front().size() : 0;
    auth_timer_.cancel();
    if (ops_) ops_->end(services::Error::slow_client, false);
    close_after_writes(websocket::close_code::try_again_later, to_string(services::Error::slow_client));
    cut_timer_.expires_after(close_within);
    cut_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      beast::error_code ignored;
      beast::get_lowest_layer(self->ws_).socket().close(ignored);
    });
  }

  void do_write() {
    ws_.text(true);
    ws_.async_write(net::buffer(queue_.front()),
                    beast::bind_front_handler(&agent_socket::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) {
      queue_.clear();
      queued_bytes_ = 0;
      closed_ = true;
      cut_timer_.cancel();
      return;
    }
    queued_bytes_ -= queue_.front().size();
    queue_.pop_front();
    if (paused_ && !closing_ && queued_bytes_ <= gw_.limits().ws_queue_low) {
      paused_ = false;
      do_read();
    }
    if (!queue_.empty()) return do_write();
    if (closing_) do_close();
  }

  void close_after_writes(websocket::close_code code, std::string_view reason) {
    if (closing_) return;
    closing_ = true;
    close_reason_ = websocket::close_reason(code, reason);
    if (queue_.empty()) do_close();
  }

  void do_close() {
    if (closed_) return;
    closed_ = true;
    ws_.async_close(close_reason_, [self = shared_from_this()](beast::error_code) { self->cut_timer_.cancel(); });
  }

  websocket::stream<beast::tcp_stream> ws_;
  services::Gateway& gw_;
  net::steady_timer auth_timer_;
  beast::flat_buffer buffer_;
  std::size_t message_bytes_ = 0;
  bool too_big_ = false;
  std::shared_ptr<ops::OpDispatcher> ops_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;  // in queue_, the message on the wire included
  bool paused_ = false;           // reading waits for the queue to drain
  bool overflowed_ = false;       // past ws_queue_max: nothing more is queued
  net::steady_timer cut_timer_;   // a close that cannot be written in time
  bool closing_ = false;  // a close follows the queued messages
  bool closed_ = false;   // no more writes
  const std::optional<services::Grade> dashboard_;
  websocket::close_reason close_reason_;
};

}  // namespace

void start_agent_socket(beast::tcp_stream stream, http::request<http::buffer_body> request, services::Gateway& gateway,
                        std::optional<services::Grade> dashboard) {
  std::make_shared<agent_socket>(std::move(stream), gateway, dashboard)->run(std::move(request));
}

}  // namespace gateway

// ---- the page door ------------------------------------------------------------

namespace gateway {

namespace {

constexpr std::size_t page_message_bytes = 16u << 20;  // a page's result, bounded by its serializer

class page_socket : public services::Stoppable, public std::enable_shared_from_this<page_socket> {
 public:
  page_socket(beast::tcp_stream&& stream, services::Gateway& gateway, std::string origin, std::string workspace)
      : ws_(std::move(stream)),
        gw_(gateway),
        origin_(std::move(origin)),
        url_workspace_(std::move(workspace)),
        hello_timer_(ws_.get_executor()) {}

  ~page_socket() override { gw_.leave_page(origin_); }

  void run(http::request<http::buffer_body> req) {
    gw_.join(weak_from_this());
    beast::get_lowest_layer(ws_).expires_never();
    websocket::stream_base::timeout t{};
    t.handshake_timeout = std::chrono::seconds(10);
    t.idle_timeout = gw_.limits().ws_idle_timeout;
    t.keep_alive_pings = true;
    ws_.set_option(t);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "editgate"); }));
    ws_.read_message_max(page_message_bytes);
    ws_.async_accept(req, beast::bind_front_handler(&page_socket::on_accept, shared_from_this()));
  }

  void stop() override {
    net::post(ws_.get_executor(), [self = shared_from_this()] { self->close(websocket::close_code::going_away); });
  }

  // Called from the worker thread.
  void send(std::string msg) {
    net::post(ws_.get_executor(), [self = shared_from_this(), msg = std::move(msg)]() mutable {
      if (self->closed_) return;
      self->queue_.push_back(std::move(msg));
      if (self->queue_.size() == 1) self->do_write();
    });
  }
  void close(websocket::close_code code = websocket::close_code::policy_error) {
    net::post(ws_.get_executor(), [self = shared_from_this(), code] {
      if (self->closing_) return;
      self->closing_ = true;
      self->close_code_ = code;
      if (self->queue_.empty()) self->do_close();
    });
  }

 private:
  // What the REPL holds: it must not keep the socket alive.
  struct Link : repl::PageLink {
    std::weak_ptr<page_socket> socket;
    void send(std::string message) override {
      if (auto s = socket.lock()) s->send(std::move(message));
    }
    void close() override {
      if (auto s = socket.lock()) s->close();
    }
  };

  void on_accept(beast::error_code ec) {
    if (ec) return;
    hello_timer_.expires_after(gw_.limits().auth_timeout);
    hello_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || self->hello_sent_) return;
      self->refuse(services::Error::request_timeout,
                   "no hello within " + std::to_string(self->gw_.limits().auth_timeout.count()) + " ms");
    });
    do_read();
  }

  void do_read() { ws_.async_read(buffer_, beast::bind_front_handler(&page_socket::on_read, shared_from_this())); }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) {
      hello_timer_.cancel();
      closed_ = true;
      if (hello_sent_) {
        repl::Repl* r = gw_.repl();
        gw_.worker().post([r, id = id_, link = link_] {
          if (!id->empty()) r->disconnect(*id, link.get());
        });
      }
      return;
    }
    std::string text = beast::buffers_to_string(buffer_.data());
    buffer_.consume(buffer_.size());
    if (!hello_sent_) {
      hello(text);
    } else {
      repl::Repl* r = gw_.repl();
      gw_.worker().post([r, id = id_, text = std::move(text)] {
        if (!id->empty()) r->from_page(*id, text);
      });
    }
    do_read();
  }

  void hello(const std::string& text) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec);
    if (ec || !v.is_object() || !v.get_object().contains("type") || v.get_object().at("type") != "hello")
      return refuse(services::Error::bad_request, "the first message must be {\"type\":\"hello\",...}");
    if (!gw_.repl()) return refuse(services::Error::not_found, "this gateway runs no pages");
    const boost::json::object& o = v.get_object();
    auto field = [&](std::string_view k) {
      const boost::json::value* f = o.if_contains(k);
      return f && f->is_string() ? std::string(f->get_string()) : std::string();
    };
    // A tab's adapter names the workspace its tag was made for, in the
    // socket's URL and in its hello: another's tab is refused before anything
    // of it is made, logged or committed. (A program speaking the page
    // protocol itself may leave both out.) The door let a socket whose URL
    // names another workspace through without its origin's approval, only to
    // be refused here: so the URL's name counts whatever the hello says.
    for (const std::string& ws : {url_workspace_, field("workspace")})
      if (!ws.empty() && ws != gw_.workspace_id())
        return refuse(services::Error::wrong_workspace,
                      "this tab's tag names workspace " + editproto::unicode::to_valid_utf8(ws.substr(0, 64)) +
                          ", and the gateway on this port serves another; start `editgate serve` in the tab's "
                          "project (it listens on the port its tag names), or paste the tag that project's gateway "
                          "prints");
    // Whatever the page says, it is a browser: only the gateway starts Node pages.
    repl::Hello h{field("id"),    field("secret"), field("name"),      field("url"),
                  field("title"), "browser",       origin_, field("user_agent")};
    hello_sent_ = true;
    hello_timer_.cancel();
    auto link = std::make_shared<Link>();
    link->socket = weak_from_this();
    link_ = link;
    repl::Repl* r = gw_.repl();
    gw_.worker().post([r, h = std::move(h), link, id = id_] {
      if (auto got = r->connect(h, link)) *id = got->id;
    });
  }

  void refuse(services::Error code, const std::string& message) {
    send(boost::json::serialize(
        boost::json::object{{"type", "refused"}, {"error", to_string(code)}, {"message", message}}));
    close();
  }

  void do_write() {
    ws_.text(true);
    ws_.async_write(net::buffer(queue_.front()), beast::bind_front_handler(&page_socket::on_write, shared_from_this()));
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

  void do_close() {
    if (closed_) return;
    closed_ = true;
    ws_.async_close(websocket::close_reason(close_code_), [self = shared_from_this()](beast::error_code) {});
  }

  websocket::stream<beast::tcp_stream> ws_;
  services::Gateway& gw_;
  std::string origin_;
  std::string url_workspace_;  // the workspace the socket's URL names; "" when none
  net::steady_timer hello_timer_;
  beast::flat_buffer buffer_;
  bool hello_sent_ = false;
  // Set on the worker thread when connect() accepts; read only there.
  std::shared_ptr<std::string> id_ = std::make_shared<std::string>();
  std::shared_ptr<Link> link_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  bool closed_ = false;
  websocket::close_code close_code_ = websocket::close_code::normal;
};

}  // namespace

void start_page_socket(beast::tcp_stream stream, http::request<http::buffer_body> request, services::Gateway& gateway,
                       std::string origin, std::string workspace) {
  std::make_shared<page_socket>(std::move(stream), gateway, std::move(origin), std::move(workspace))
      ->run(std::move(request));
}

}  // namespace gateway
