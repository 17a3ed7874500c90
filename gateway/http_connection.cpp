// The HTTP door: one http_connection per connection, in the shape of Beast's
// examples (shared_from_this, a strand per connection, one write in flight
// with a queue). The routes of the op table (/v1/health, /v1/history,
// /v1/pages, /v1/eval, /v1/edits) are a thin adapter: query or JSON body to
// the op's parameters, ops::dispatch, its final reply as the answer with the
// status of its code. A route whose body is a parameter (POST /v1/edits, the
// edit op's text) streams: the op pulls the body piece by piece
// (ops::TextSource) and each reply goes back as an NDJSON line in a chunked
// response while the body is still arriving.
#include "editproto/unicode.hpp"
#include "dashboard/door.hpp"
#include "services/edit_run.hpp"
#include "gateway/net.hpp"
#include "mcp/http.hpp"
#include "ops/dispatch.hpp"
#include "ops/table.hpp"
#include "services/target.hpp"
#include "ops/http_replies.hpp"
#include "gateway/http_connection.hpp"
#include "gateway/token_door.hpp"
#include "gateway/websockets.hpp"
#include "gateway/write_queue.hpp"
#include "repl/assets.hpp"

#include <boost/json.hpp>

#include <sstream>
#include <utility>
#include <vector>

namespace gateway {

namespace json = boost::json;

namespace {

constexpr std::size_t body_piece = 64 * 1024;
constexpr std::chrono::seconds write_timeout{30};
constexpr std::size_t op_body_limit = 16u << 20;  // a POST route's JSON body (an eval's code)

class http_connection : public services::Stoppable, public services::HttpResponder, public std::enable_shared_from_this<http_connection> {
 public:
  http_connection(tcp::socket&& socket, services::Gateway& gateway, mcp::McpServer& mcp)
      : stream_(std::move(socket)), ex_(stream_.get_executor()), gw_(gateway), mcp_(mcp), deadline_(stream_.get_executor()),
        body_(new char[body_piece]) {}

  ~http_connection() override {
    if (counted_) gw_.leave();
  }

  void run() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&http_connection::on_run, shared_from_this()));
  }

  void stop() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->stopping_ = true;
      // A read in progress ends with operation_aborted: between requests
      // that closes the connection, in a stream it commits and reports.
      self->cancel_read();
    });
  }

 private:
  void on_run() {
    // Results are small writes that must leave at once, not wait for an ACK (Nagle).
    beast::error_code ignored;
    stream_.socket().set_option(tcp::no_delay(true), ignored);
    if (!gw_.enter()) {
      respond_error(services::Error::too_many_connections,
                    "the gateway has " + std::to_string(gw_.limits().connections) + " connections open", false);
      return;
    }
    counted_ = true;
    gw_.join(weak_from_this());
    if (gw_.stopping()) return close();
    do_read();
  }

  // ---- reading -----------------------------------------------------------

  // Every read has a deadline of its own, so a slow client gets a named
  // error instead of a silently closed socket.
  void arm(std::chrono::milliseconds after) {
    timed_out_ = false;
    deadline_.expires_after(after);
    deadline_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      self->timed_out_ = true;
      self->cancel_read();
    });
  }

  // Cancelling the socket cancels a write too, and a write cut in half
  // would break the chunked framing of lines already promised: so with a
  // write in flight, the cancel waits for it.
  void cancel_read() {
    if (!writes_.empty()) {
      cancel_after_write_ = true;
      return;
    }
    beast::error_code ignored;
    stream_.socket().cancel(ignored);
  }

  void do_read() {
    if (stopping_) return close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(gw_.limits().header_bytes));
    parser_->body_limit(boost::none);  // the edit engine's own limit applies, with a result per block
    arm(gw_.limits().header_timeout);
    stream_.expires_never();
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&http_connection::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, std::size_t) {
    deadline_.cancel();
    cancel_after_write_ = false;  // the read it was meant for is over
    if (ec == http::error::end_of_stream) return close();
    if (ec == http::error::header_limit)
      return respond_error(services::Error::header_too_large, "the request head is over " +
                                                        std::to_string(gw_.limits().header_bytes) + " bytes", false);
    if (ec && timed_out_ && buffer_.size() > 0)
      return respond_error(services::Error::request_timeout, "the request head did not arrive within " +
                                               std::to_string(gw_.limits().header_timeout.count()) + " ms", false);
    if (malformed(ec)) return respond_error(services::Error::bad_request, "malformed HTTP request (" + ec.message() + ")", false);
    if (ec) return close();
    // A body framed by a coding other than chunked has no length we can
    // trust: a proxy in front may read it differently (request smuggling).
    if (auto& req = parser_->get(); req.count(http::field::transfer_encoding) && !req.chunked())
      return respond_error(services::Error::bad_request, "Transfer-Encoding must end in chunked; other codings are not accepted",
                           false);
    route();
  }

  // The parser's verdicts on what the client sent, as opposed to the
  // connection ending or a limit: each gets the 400 JSON error, then the
  // connection closes, since where the next request starts is unknown.
  static bool malformed(beast::error_code ec) {
    for (http::error e : {http::error::bad_line_ending, http::error::bad_method, http::error::bad_target,
                          http::error::bad_version, http::error::bad_field, http::error::bad_value,
                          http::error::bad_content_length, http::error::bad_transfer_encoding,
                          http::error::multiple_content_length, http::error::bad_chunk,
                          http::error::bad_chunk_extension, http::error::bad_obs_fold})
      if (ec == e) return true;
    return false;
  }

  void route() {
    auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    const bool has_body = req.chunked() || (req.has_content_length() && parser_->content_length().value_or(0) > 0);
    if (!host_allowed(req[http::field::host], gw_.binding()))
      return respond_error(services::Error::host_not_allowed,
                           "Host '" + editproto::unicode::to_valid_utf8(req[http::field::host]) +
                               "' is not this gateway; use 127.0.0.1:" +
                               std::to_string(gw_.binding().port),
                           !has_body);
    auto target = services::parse_target(req.target());
    if (!target) return respond_error(target.error().code, target.error().message, !has_body);

    const std::string& path = target->path;
    // The page door and its script have an Origin rule of their own: pages
    // come from wherever the developer serves them (loopback by default).
    if (path == "/adapter.js") {
      if (req.method() != http::verb::get) return respond_error(services::Error::method_not_allowed, "use GET", !has_body);
      // A page loads it with CORS (<script crossorigin>) so that the browser does not mute the
      // errors of the code it evaluates. Any origin may: the script holds nothing secret, and the
      // page door is where an origin is allowed or not.
      return send_response(http::status::ok, "application/javascript; charset=utf-8", repl::adapter_js(), !has_body,
                           {{"Access-Control-Allow-Origin", "*"}});
    }
    if (path == "/v1/page") {
      if (!websocket::is_upgrade(req))
        return respond_error(services::Error::bad_request, "/v1/page is a WebSocket for pages; include /adapter.js", !has_body);
      auto origin = req[http::field::origin];
      if (origin.empty())
        return respond_error(services::Error::forbidden_origin, "a page connects from a browser, which sends Origin", false);
      std::string_view workspace;  // the tab's, as its adapter names it in the socket's URL
      for (const auto& [name, value] : target->params) workspace = name == "workspace" ? std::string_view(value) : workspace;
      if (auto refused = services::page_origin_refused(gw_, origin, workspace)) return respond_error(refused->code, refused->message, false);
      if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
      // Counted by origin as compared (page_origin_allowed normalized it already).
      std::string page_origin = services::normalize_origin(origin).value_or(std::string(origin));
      if (!gw_.enter_page(page_origin))
        return respond_error(services::Error::too_many_pages,
                             "too many pages are connected from " + editproto::unicode::to_valid_utf8(origin) +
                                 " (at most " + std::to_string(gw_.limits().page_sockets_per_origin) + " per origin, " +
                                 std::to_string(gw_.limits().page_sockets) + " in all)",
                             false);
      counted_ = false;  // the page socket leaves the pages' pool
      return start_page_socket(std::move(stream_), parser_->release(), gw_, std::move(page_origin), std::string(workspace));
    }
    // Browsers send Origin; a page from anywhere but an allowed origin
    // never gets past this, whatever else it knows.
    if (auto origin = req[http::field::origin]; !origin.empty() && !origin_allowed(origin, gw_.binding()))
      return respond_error(services::Error::forbidden_origin,
                           "Origin '" + editproto::unicode::to_valid_utf8(origin) + "' may not use this gateway",
                           !has_body);
    // The agents' WebSocket, at its versioned path and at the plain /ws
    // that clients of the nREPL-like protocol know.
    if (path == "/v1/ws" || path == "/ws") {
      if (!websocket::is_upgrade(req))
        return respond_error(services::Error::bad_request, path + " is a WebSocket; send an upgrade request", !has_body);
      if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
      // The connection's count goes with it to the agent's WebSocket.
      counted_ = false;
      return start_agent_socket(std::move(stream_), parser_->release(), gw_);
    }
    if (path == "/v1/dashboard") {
      if (!websocket::is_upgrade(req))
        return respond_error(services::Error::bad_request, "/v1/dashboard is the dashboard's WebSocket", !has_body);
      auto grade = dashboard::dashboard_socket_allowed(req[http::field::origin], cookie_headers(req), gw_);
      if (!grade) return respond_error(grade.error().code, grade.error().message, false);
      if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
      counted_ = false;
      return start_agent_socket(std::move(stream_), parser_->release(), gw_, *grade);
    }
    if (path == dashboard::screenshot_route) {
      if (req.method() != http::verb::get) return respond_error(services::Error::method_not_allowed, "use GET", !has_body);
      return dashboard::send_screenshot(*target, cookie_headers(req), gw_, shared_from_this());
    }
    if (req.method() == http::verb::get)
      if (auto page = dashboard::dashboard_get(*target, cookie_headers(req), gw_))
        return send_response(static_cast<http::status>(page->status), page->type, std::move(page->body), !has_body,
                             page->headers);
    if (auto door = oauth_door(path, gw_))
      return send_response(static_cast<http::status>(door->status), "application/json", std::move(door->body), !has_body);
    if (path == "/mcp") return route_mcp(has_body);
    if (const ops::OpSpec* op = ops::find_route(path)) return route_op(*op, *target, has_body);
    return respond_error(services::Error::not_found, "no route " + path + "; see " + ops::route_list(), !has_body);
  }

  // ---- the op routes: /v1/health, /v1/history, /v1/pages, /v1/eval ------

  // Every route but the door's own (health, the WebSockets) needs the cookie.
  bool authorized(bool has_body) {
    auto token = services::bearer_token(parser_->get()[http::field::authorization]);
    if (token && services::constant_time_equal(*token, gw_.cookie())) return true;
    DoorAnswer refused = token_refused(gw_, token.has_value());
    send_response(http::status::unauthorized, "application/json", std::move(refused.body), !has_body, refused.headers);
    return false;
  }

  // An op's route: its parameters from the query (GET) or a JSON object
  // body (POST), then the op as on every door.
  void route_op(const ops::OpSpec& op, const services::Target& target, bool has_body) {
    if (op.http->bearer && !authorized(has_body)) return;
    const std::string_view method = http_method(op);
    if (parser_->get().method() != http::string_to_verb(method))
      return respond_error(services::Error::method_not_allowed, "use " + std::string(method), !has_body);
    if (!op.http->body.empty()) return route_streamed(op, target, has_body);
    if (method == "GET") {
      auto params = params_from_query(op, target.params);
      if (!params) return respond_error(params.error().code, params.error().message, !has_body);
      return call_op(op, std::move(*params));
    }
    if (!target.params.empty())
      return respond_error(services::Error::bad_request,
                           std::string(op.name) + " takes its parameters in the JSON body, not in the query", !has_body);
    if (parser_->content_length() && *parser_->content_length() > op_body_limit)
      return respond_error(services::Error::payload_too_large, "the body is over " + std::to_string(op_body_limit) + " bytes",
                           false);
    if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
    if (parser_->get()[http::field::expect] == "100-continue") queue("HTTP/1.1 100 Continue\r\n\r\n");
    op_body_.clear();
    read_whole_body([self = shared_from_this(), &op] { self->body_read(op); });
  }

  // A JSON body, whole, into op_body_ (op_body_limit), then `then`.
  void read_whole_body(std::function<void()> then) {
    if (parser_->is_done()) return then();
    parser_->get().body().data = body_.get();
    parser_->get().body().size = body_piece;
    arm(gw_.limits().body_timeout);
    http::async_read_some(stream_, buffer_, *parser_, [self = shared_from_this(), then = std::move(then)](beast::error_code ec, std::size_t) mutable {
      self->deadline_.cancel();
      if (ec == http::error::need_buffer) ec = {};
      if (ec) {
        if (self->timed_out_) return self->respond_error(services::Error::request_timeout, "the body stopped arriving", false);
        if (malformed(ec))
          return self->respond_error(services::Error::bad_request, "malformed HTTP body (" + ec.message() + ")", false);
        return self->close();
      }
      self->op_body_.append(self->body_.get(), body_piece - self->parser_->get().body().size);
      if (self->op_body_.size() > op_body_limit)
        return self->respond_error(services::Error::payload_too_large,
                                   "the body is over " + std::to_string(op_body_limit) + " bytes", false);
      self->read_whole_body(std::move(then));
    });
  }

  void body_read(const ops::OpSpec& op) {
    boost::system::error_code ec;
    json::value v = json::parse(op_body_, ec);
    op_body_.clear();
    if (ec || !v.is_object())
      return respond_error(services::Error::bad_json, "the body must be a JSON object of " + std::string(op.name) + "'s parameters",
                           true);
    call_op(op, std::move(v.get_object()));
  }

  void call_op(const ops::OpSpec& op, json::object params) {
    // Each request is a connection of its own: no context, a new session per run.
    dispatch(gw_, op, ops::Envelope{"HTTP"}, std::move(params), std::make_shared<ops::ConnectionState>(gw_.worker(), ""),
             ops::json_replies(shared_from_this(), op.streams));
  }

  // ---- a streamed route: POST /v1/edits ----------------------------------

  // The op's other parameters from the query (`session` the envelope's),
  // its body parameter read as the op asks for it, its replies as NDJSON.
  void route_streamed(const ops::OpSpec& op, const services::Target& target, bool has_body) {
    // The run is named by its route in the log and the recent runs.
    ops::Envelope env{std::string(ops::http_method(op)) + " " + std::string(op.http->path)};
    std::vector<std::pair<std::string, std::string>> query;
    for (const auto& [key, value] : target.params) {
      if (key != "session") {
        query.emplace_back(key, value);
      } else if (env.session || !services::valid_name(value)) {
        return respond_error(services::Error::bad_request, "session must be given once, 1-64 letters, digits, '.', '_' or '-'",
                             !has_body);
      } else {
        env.session = value;
      }
    }
    auto params = params_from_query(op, query);
    if (!params) return respond_error(params.error().code, params.error().message, !has_body);
    if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
    if (parser_->content_length() && *parser_->content_length() > ops::max_edit_text)
      return respond_error(services::Error::payload_too_large, "the body is " + std::to_string(*parser_->content_length()) +
                                                                   " bytes; the limit is " + std::to_string(ops::max_edit_text),
                           false);
    // Each request is a connection of its own: no context, and the session
    // it names is held until the final reply.
    auto conn = std::make_shared<ops::ConnectionState>(gw_.worker(), "");
    auto out = std::make_shared<ops::NdjsonReplies>(shared_from_this(), [&gw = gw_, conn] {
      gw.sessions().release(conn.get(), "", {});
    });
    env.text = std::make_shared<body_source>(shared_from_this(), out);
    dispatch(gw_, op, std::move(env), std::move(*params), std::move(conn), std::move(out));
  }

  // The body, a piece per read. The first read answers the head.
  void next_piece(ops::NdjsonReplies& out, std::function<void(ops::Piece)> got) {
    if (!streaming_) {
      if (parser_->get()[http::field::expect] == "100-continue") queue("HTTP/1.1 100 Continue\r\n\r\n");
      out.begin();
      streaming_ = true;
    }
    if (parser_->is_done()) return got(ops::Piece::last());
    if (stopping_) return got(cut(services::Error::shutting_down));
    parser_->get().body().data = body_.get();
    parser_->get().body().size = body_piece;
    arm(gw_.limits().body_timeout);
    http::async_read_some(stream_, buffer_, *parser_, [self = shared_from_this(), &out, got = std::move(got)](beast::error_code ec, std::size_t) mutable {
      self->deadline_.cancel();
      self->cancel_after_write_ = false;  // the read it was meant for is over
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t n = body_piece - self->parser_->get().body().size;
      if (ec) {
        if (self->timed_out_) return got(self->cut(services::Error::request_timeout));
        if (self->stopping_) return got(self->cut(services::Error::shutting_down));
        // The client went away: what its complete blocks did stays, and is committed.
        self->peer_gone_ = true;
        return got(self->cut(services::Error::io));
      }
      if (n == 0) return self->next_piece(out, std::move(got));
      got(ops::Piece::more(std::string(self->body_.get(), n)));
    });
  }

  static ops::Piece cut(services::Error why) {
    std::string message = why == services::Error::request_timeout ? "no more of the body arrived within the time limit"
                          : why == services::Error::shutting_down ? "the gateway is stopping"
                                                                  : "the connection broke";
    return ops::Piece::broken({why, message + "; the blocks completed before stay applied"});
  }

  class body_source final : public ops::TextSource {
   public:
    body_source(std::shared_ptr<http_connection> s, std::shared_ptr<ops::NdjsonReplies> out)
        : s_(std::move(s)), out_(std::move(out)) {}
    void next(std::function<void(ops::Piece)> got) override { s_->next_piece(*out_, std::move(got)); }

   private:
    std::shared_ptr<http_connection> s_;
    std::shared_ptr<ops::NdjsonReplies> out_;
  };

  // A streamed op's replies: each an NDJSON line, the final one with its
  // status flags. A refusal before the body was read is an HTTP error.
  // ---- /mcp: the MCP door (mcp/server.hpp) --------------------------

  void route_mcp(bool has_body) {
    if (!authorized(has_body)) return;
    auto& req = parser_->get();
    mcp::McpServer* mcp = &mcp_;
    if (req.method() == http::verb::delete_) {
      // Ends a 2025-11-25 session; 2026-07-28 has none to end.
      auto id = req.find("Mcp-Session-Id");
      if (id == req.end()) return respond_error(services::Error::method_not_allowed, "DELETE needs Mcp-Session-Id", !has_body);
      if (!mcp->end_session(std::string(id->value())))
        return respond_error(services::Error::not_found, "no MCP session " + editproto::unicode::to_valid_utf8(id->value()),
                             !has_body);
      return send_response(http::status::no_content, "application/json", "", !has_body);
    }
    // No stream from the server outside a request: editgate sends nothing unasked.
    if (req.method() != http::verb::post)
      return respond_error(services::Error::method_not_allowed, "use POST (DELETE ends a session)", !has_body);
    auto type = req[http::field::content_type];
    if (!type.starts_with("application/json"))
      return respond_error(services::Error::bad_request, "Content-Type must be application/json", !has_body);
    if (parser_->content_length() && *parser_->content_length() > op_body_limit)
      return respond_error(services::Error::payload_too_large, "the body is over " + std::to_string(op_body_limit) + " bytes",
                           false);
    if (gw_.stopping()) return respond_error(services::Error::shutting_down, "the gateway is stopping", false);
    mcp::McpHeaders headers;
    auto header = [&](std::string_view name) -> std::optional<std::string> {
      auto it = req.find(name);
      return it == req.end() ? std::nullopt : std::optional<std::string>(it->value());
    };
    headers.protocol_version = header("MCP-Protocol-Version");
    headers.session = header("Mcp-Session-Id");
    headers.method = header("Mcp-Method");
    headers.name = header("Mcp-Name");
    op_body_.clear();
    read_whole_body([self = shared_from_this(), mcp, headers = std::move(headers)] {
      std::string body = std::move(self->op_body_);
      self->op_body_.clear();
      auto answer = std::make_shared<mcp::McpHttpStream>(self);
      if (auto pending = mcp->post(headers, body, answer)) self->watch_peer(answer, std::move(pending));
    });
  }

  // While a tool call runs nothing is read: a client that closes its end
  // makes the socket readable with nothing to read.
  void watch_peer(std::shared_ptr<mcp::McpHttpStream> answer, std::shared_ptr<mcp::McpPending> pending) {
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this(), answer, pending](beast::error_code ec) {
      if (ec || answer->answered()) return;
      beast::error_code ignored;
      if (self->stream_.socket().available(ignored) == 0) pending->disconnected();
    });
  }

  // ---- HttpResponder: answers other than an op's reply ---------------------

  boost::asio::any_io_executor executor() const override { return ex_; }

  // The connection carries another request only when this one's body was read whole.
  void respond(unsigned status, std::string_view type, std::string body, const services::HttpHeaders& headers) override {
    send_response(static_cast<http::status>(status), type, std::move(body), parser_->is_done(), headers);
  }

  void begin_stream(std::string_view type, const services::HttpHeaders& headers) override {
    http::response<http::empty_body> head{http::status::ok, parser_->get().version()};
    head.set(http::field::server, "editgate");
    head.set(http::field::content_type, type);
    head.set(http::field::cache_control, "no-store");
    head.set("X-Content-Type-Options", "nosniff");
    for (const auto& [field, value] : headers) head.set(field, value);
    chunked_ = parser_->get().version() >= 11;
    head.chunked(chunked_);
    head.keep_alive(keep_alive_ && chunked_);
    std::ostringstream s;
    s << head.base();
    queue(s.str());
  }

  void stream(std::string_view bytes) override { queue(framed(bytes, chunked_)); }

  void end_stream(std::string_view last) override {
    streaming_ = false;
    if (peer_gone_) return close();  // nobody hears the last line
    end_response(last);
    // Kept only when the body was read whole: the op can end first (over
    // its bound, cut), and the rest of the body must never be read as a request.
    after_writes(keep_alive_ && chunked_ && !stopping_ && parser_->is_done());
  }

  void abort() override { close(); }
  std::size_t unsent_bytes() const override { return writes_.bytes(); }

  // ---- writing -------------------------------------------------------------

  void respond(http::status status, const json::object& body, bool keep_alive) {
    send_response(status, "application/json", json::serialize(body) + "\n", keep_alive);
  }

  void send_response(http::status status, std::string_view type, std::string body, bool keep_alive,
                     const services::HttpHeaders& extra = {}) {
    http::response<http::string_body> res{status, 11};
    res.set(http::field::server, "editgate");
    res.set(http::field::content_type, type);
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    for (const auto& [field, value] : extra) res.set(field, value);
    res.body() = std::move(body);
    keep_alive = keep_alive && keep_alive_ && !stopping_;
    res.keep_alive(keep_alive);
    res.prepare_payload();
    std::ostringstream s;
    s << res;
    queue(s.str());
    after_writes(keep_alive);
  }

  // `keep_alive` false: the request's body (if any) was not read, so the
  // connection cannot carry another request.
  void respond_error(services::Error code, const std::string& message, bool keep_alive, json::object body = {}) {
    mark_http_error(body, services::Failure{code, message});
    respond(static_cast<http::status>(http_status(code)), body, keep_alive);
  }

  // The last lines of a streamed response, and its end.
  void end_response(std::string_view lines) {
    queue(framed(lines, chunked_));
    if (chunked_) queue("0\r\n\r\n");
  }

  void queue(std::string bytes) {
    writes_.push_back(std::move(bytes));
    if (writes_.size() == 1) do_write();
  }

  // When the queue drains: read the next request, or close.
  void after_writes(bool next) {
    then_ = next ? Then::read : Then::close;
    if (writes_.empty()) proceed();
  }

  void do_write() {
    stream_.expires_after(write_timeout);
    net::async_write(stream_, net::buffer(writes_.front()),
                     beast::bind_front_handler(&http_connection::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) {
      writes_.clear();
      if (streaming_) return;  // the read side notices and commits
      return close();
    }
    writes_.pop_front();
    if (!writes_.empty()) return do_write();
    if (std::exchange(cancel_after_write_, false)) cancel_read();
    proceed();
  }

  void proceed() {
    Then t = std::exchange(then_, Then::wait);
    if (t == Then::read) {
      do_read();
    } else if (t == Then::close) {
      close();
    }
  }

  void close() {
    deadline_.cancel();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  enum class Then { wait, read, close };

  beast::tcp_stream stream_;
  const net::any_io_executor ex_;  // the connection's strand, stream_'s
  beast::flat_buffer buffer_;
  services::Gateway& gw_;
  mcp::McpServer& mcp_;
  net::steady_timer deadline_;
  std::optional<http::request_parser<http::buffer_body>> parser_;
  std::unique_ptr<char[]> body_;
  std::string op_body_;
  WriteQueue writes_;
  Then then_ = Then::wait;
  bool counted_ = false;
  bool keep_alive_ = true;
  bool streaming_ = false;  // a streamed route's head is sent; its replies are NDJSON lines
  bool peer_gone_ = false;  // the client went away mid-body: nobody hears the last line
  bool chunked_ = true;  // the streamed response is chunked (HTTP/1.1)
  bool stopping_ = false;
  bool timed_out_ = false;
  bool cancel_after_write_ = false;
};

}  // namespace

void start_http_connection(tcp::socket socket, services::Gateway& gateway, mcp::McpServer& mcp) {
  std::make_shared<http_connection>(std::move(socket), gateway, mcp)->run();
}

}  // namespace gateway
