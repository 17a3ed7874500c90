// The bridge's HTTP side: one io_context thread owns every call, the
// connection pool, the gateway's address and the 2025-11-25 session; the
// stdin reader thread only posts lines to it, and it alone writes standard
// output, so lines never interleave.
#include "cli/mcp_bridge.hpp"

#include "cli/mcp_finder.hpp"
#include "cli/mcp_ledger.hpp"
#include "cli/mcp_pool.hpp"
#include "cli/mcp_stdio.hpp"
#include "cli/mcp_wire.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace cli {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr auto stop_limit = 500ms;  // at the end, for the cancels and the session's DELETE

}  // namespace

namespace bridge {

struct Call {
  std::string body;  // the client's line, as sent
  bridge::Facts facts;
  http::verb verb = http::verb::post;
  bool internal = false;     // the bridge's own (a cancel at the end, a new initialize): nothing is printed
  bool request = false;      // something answers it with its id
  std::string sent_session;  // the Mcp-Session-Id it went with
  std::function<void()> then;  // an internal call's next step, once it has ended
  bool answered = false;     // its response went out
  bool cancelled = false;    // its stream was closed on purpose: nothing more goes out for it
  bool cancel_sent = false;  // a notifications/cancelled for it went to the gateway
  bool reused = false;       // on a kept-alive connection
  int attempts = 0;
  unsigned status = 0;
  bool sse = false;
  std::string json_body;
  bridge::SseReader events;
  std::unique_ptr<Conn> conn;
  http::request<http::string_body> req;
  std::optional<http::response_parser<http::buffer_body>> parser;
  std::array<char, 1 << 16> chunk;
};

}  // namespace bridge

namespace {

using bridge::Call;
using bridge::CallPtr;
using bridge::Conn;

class Bridge {
 public:
  // `refusal`: why there is no workspace to serve; every request is
  // answered with it, so the client shows it, and nothing is created.
  Bridge(net::io_context& ioc, std::string root, std::string refusal, std::optional<unsigned short> port,
         std::ostream& err)
      : ioc_(ioc), root_(root), err_(err),
        finder_(ioc, std::move(root), std::move(refusal), port, err,
                [this](const bridge::Endpoint& ep) { gateway_ready(ep); },
                [this](const std::string& message) { gateway_failed(message); }),
        stop_timer_(ioc) {}

  void resolve() { finder_.find(); }
  void on_input(bridge::InputEvent e);
  void stop(const char* why);

 private:
  void on_line(std::string line);
  void dispatch(const CallPtr& c);
  void send(const CallPtr& c);
  void connect(const CallPtr& c);
  void write(const CallPtr& c);
  void on_header(const CallPtr& c, beast::error_code ec);
  void read_body(const CallPtr& c);
  void on_bytes(const CallPtr& c, std::string_view bytes);
  void finish(const CallPtr& c);
  void emit(const CallPtr& c, std::string_view text);
  void broken(const CallPtr& c, beast::error_code ec, bool before_answer);
  void fail(const CallPtr& c, const std::string& message);
  void release(const CallPtr& c, bool keep_connection);
  void gateway_ready(const bridge::Endpoint& ep);
  void gateway_failed(const std::string& message);
  void forget_gateway();
  void out(std::string_view line);
  void prepare(Call& c);
  CallPtr internal_call(std::string body, http::verb verb);
  bool session_lost(const CallPtr& c, const json::value& answer);
  void initialize_again(const CallPtr& c);
  void keep(std::unique_ptr<Conn> conn);
  void maybe_exit();

  net::io_context& ioc_;
  std::string root_;
  std::ostream& err_;
  bridge::GatewayFinder finder_;
  std::optional<bridge::Endpoint> endpoint_;
  net::steady_timer stop_timer_;
  std::deque<CallPtr> waiting_;  // for the gateway's address
  bridge::Ledger calls_;
  bridge::Pool idle_;
  std::string session_id_;        // 2025-11-25: from the initialize response
  std::string protocol_version_;  // 2025-11-25: the version initialize agreed on
  std::string initialize_;        // 2025-11-25: the client's initialize, sent again when the session is lost
  std::vector<CallPtr> after_initialize_;  // calls waiting for that
  bool stopping_ = false;
  bool stdout_gone_ = false;

 public:
  std::shared_ptr<bridge::InputGate> gate = std::make_shared<bridge::InputGate>(64);
};

// ---- standard input ------------------------------------------------------

void Bridge::on_input(bridge::InputEvent e) {
  gate->leave();
  if (stopping_) return;
  switch (e.kind) {
    case bridge::InputEvent::line: return on_line(std::move(e.text));
    case bridge::InputEvent::too_long:
      return out(bridge::error_line(nullptr, bridge::invalid_request,
                                 "payload_too_large: a line over " + std::to_string(bridge::max_message_bytes >> 20) +
                                     " MiB was not sent; it is skipped up to its line end"));
    case bridge::InputEvent::end: return stop("standard input ended");
  }
}

void Bridge::on_line(std::string line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec) return out(bridge::error_line(nullptr, bridge::parse_error, "Parse error: " + ec.message()));
  auto c = std::make_shared<Call>();
  c->facts = bridge::facts_of(v);
  c->body = std::move(line);
  c->request = c->facts.has_id && !c->facts.method.empty();
  if (!c->facts.cancels.is_null()) {
    if (const CallPtr target = calls_.find(c->facts.cancels)) {
      target->cancel_sent = true;
      // 2026-07-28: closing the request's stream is the cancellation.
      if (!target->facts.modern_version.empty()) {
        target->cancelled = true;
        if (target->conn) target->conn->stream.socket().close(ec);
      }
    }
  }
  switch (calls_.admit(c, c->request ? &c->facts.id : nullptr)) {
    case bridge::Ledger::Admit::too_many_requests:
      return out(bridge::error_line(c->facts.id, bridge::internal_error,
                                 "too_many_requests: " + std::to_string(bridge::max_requests) +
                                     " requests are in flight already; send it again once one has ended"));
    case bridge::Ledger::Admit::too_many_notifications:
      err_ << "editgate mcp: too_many_notifications: " << bridge::max_notifications
           << " are being posted already; dropped: " << c->body.substr(0, 200) << '\n';
      return;
    case bridge::Ledger::Admit::ok: break;
  }
  if (c->request && c->facts.method == "initialize" && c->facts.modern_version.empty()) initialize_ = c->body;
  dispatch(c);
}

// ---- the gateway's address -----------------------------------------------

void Bridge::gateway_ready(const bridge::Endpoint& ep) {
  endpoint_ = ep;
  idle_.clear();
  auto ready = std::move(waiting_);
  waiting_.clear();
  for (const CallPtr& c : ready) send(c);
}

void Bridge::gateway_failed(const std::string& message) {
  if (waiting_.empty()) err_ << "editgate mcp: " << message << '\n';
  auto failed = std::move(waiting_);
  waiting_.clear();
  for (const CallPtr& c : failed) fail(c, message);
}

// The gateway went away or refused our cookie: the next call reads
// the state folder again (and starts a gateway when none runs).
void Bridge::forget_gateway() {
  endpoint_.reset();
  idle_.clear();
}

// ---- one call ------------------------------------------------------------

void Bridge::dispatch(const CallPtr& c) {
  if (endpoint_) return send(c);
  waiting_.push_back(c);
  resolve();
}

void Bridge::prepare(Call& c) {
  const bridge::Endpoint& ep = *endpoint_;
  c.req = {};
  c.sent_session.clear();
  c.req.method(c.verb);
  c.req.target("/mcp");
  c.req.version(11);
  c.req.keep_alive(true);
  c.req.set(http::field::host, ep.host);
  c.req.set(http::field::authorization, ep.authorization);
  c.req.set(http::field::accept, "application/json, text/event-stream");
  const bridge::Facts& f = c.facts;
  if (!f.modern_version.empty()) {
    c.req.set("MCP-Protocol-Version", f.modern_version);
    if (!f.method.empty()) c.req.set("Mcp-Method", f.method);
    if (f.name) c.req.set("Mcp-Name", bridge::header_value(*f.name));
  } else if (f.method != "initialize") {
    if (!session_id_.empty()) c.req.set("Mcp-Session-Id", session_id_);
    c.sent_session = session_id_;
    if (!protocol_version_.empty()) c.req.set("MCP-Protocol-Version", protocol_version_);
  }
  if (c.verb == http::verb::post) {
    c.req.set(http::field::content_type, "application/json");
    c.req.body() = c.body;
  }
  c.req.prepare_payload();
}

void Bridge::send(const CallPtr& c) {
  if (c->cancelled) return release(c, false);
  prepare(*c);
  c->status = 0;
  c->sse = false;
  c->json_body.clear();
  c->events = {};
  c->conn = idle_.take(endpoint_->generation);
  c->reused = c->conn != nullptr;
  if (c->reused) return write(c);
  connect(c);
}

void Bridge::connect(const CallPtr& c) {
  c->conn = std::make_unique<Conn>(ioc_);
  c->conn->generation = endpoint_->generation;
  const tcp::endpoint to(net::ip::make_address_v4("127.0.0.1"), endpoint_->port);
  c->conn->stream.async_connect(to, [this, c](beast::error_code ec) {
    if (c->cancelled) return release(c, false);
    if (ec) {
      // Nothing was sent: the gateway is found (or started) again and the
      // call goes once more.
      if (endpoint_ && endpoint_->generation == c->conn->generation) forget_gateway();
      if (++c->attempts < 2) return dispatch(c);
      return fail(c, "cannot reach the gateway serving " + root_ + " (" + ec.message() + ")");
    }
    c->conn->stream.socket().set_option(tcp::no_delay(true), ec);
    write(c);
  });
}

void Bridge::write(const CallPtr& c) {
  http::async_write(c->conn->stream, c->req, [this, c](beast::error_code ec, std::size_t) {
    if (c->cancelled) return release(c, false);
    if (ec) return broken(c, ec, true);
    c->parser.emplace();
    c->parser->body_limit(boost::none);  // bounded per message below, not per stream
    http::async_read_header(c->conn->stream, c->conn->buffer, *c->parser,
                            [this, c](beast::error_code ec, std::size_t) { on_header(c, ec); });
  });
}

void Bridge::on_header(const CallPtr& c, beast::error_code ec) {
  if (c->cancelled) return release(c, false);
  if (ec) return broken(c, ec, true);
  const auto& res = c->parser->get();
  c->status = res.result_int();
  c->sse = res[http::field::content_type].starts_with("text/event-stream");
  if (c->facts.method == "initialize" && c->facts.modern_version.empty() && c->status == 200) {
    session_id_ = std::string(res["Mcp-Session-Id"]);
    protocol_version_.clear();  // set from the result
  }
  if (c->status == 401) forget_gateway();  // a new cookie, perhaps: read again next time
  read_body(c);
}

void Bridge::read_body(const CallPtr& c) {
  if (c->parser->is_done()) return finish(c);
  auto& body = c->parser->get().body();
  body.data = c->chunk.data();
  body.size = c->chunk.size();
  http::async_read_some(c->conn->stream, c->conn->buffer, *c->parser, [this, c](beast::error_code ec, std::size_t) {
    if (c->cancelled) return release(c, false);
    if (ec == http::error::need_buffer) ec = {};
    if (ec) return broken(c, ec, !c->answered);
    on_bytes(c, std::string_view(c->chunk.data(), c->chunk.size() - c->parser->get().body().size));
    if (calls_.tracks(c)) read_body(c);
  });
}

void Bridge::on_bytes(const CallPtr& c, std::string_view bytes) {
  if (c->sse) {
    if (!c->events.feed(bytes, [&](std::string data) { emit(c, data); }))
      fail(c, "payload_too_large: an event from the gateway is over " +
                  std::to_string(bridge::max_message_bytes >> 20) + " MiB");
    return;
  }
  if (c->json_body.size() + bytes.size() > bridge::max_message_bytes)
    return fail(c, "payload_too_large: the gateway's answer is over " + std::to_string(bridge::max_message_bytes >> 20) +
                       " MiB");
  c->json_body.append(bytes);
}

// One message from the gateway to standard output. The answer to a
// 2025-11-25 initialize also says which version later requests name.
void Bridge::emit(const CallPtr& c, std::string_view text) {
  json::value v;
  std::optional<std::string> line = bridge::as_line(text, &v);
  if (!line || !bridge::is_jsonrpc(v)) {
    err_ << "editgate mcp: the gateway sent a message that is not JSON-RPC; skipped: " << text.substr(0, 200) << '\n';
    return;
  }
  const json::object& o = v.get_object();
  const json::value* id = o.if_contains("id");
  if (c->request && id && *id == c->facts.id && !o.contains("method")) {
    c->answered = true;
    if (c->facts.method == "initialize" && c->facts.modern_version.empty())
      if (const json::value* r = o.if_contains("result"); r && r->is_object())
        if (const json::value* pv = r->get_object().if_contains("protocolVersion"); pv && pv->is_string())
          protocol_version_ = pv->get_string();
  }
  if (!c->internal && !c->cancelled) out(*line);
}

void Bridge::finish(const CallPtr& c) {
  if (!c->sse && !c->json_body.empty()) {
    json::value v;
    std::optional<std::string> line = bridge::as_line(c->json_body, &v);
    if (line && session_lost(c, v)) return initialize_again(c);
    if (line && bridge::is_jsonrpc(v)) {
      emit(c, c->json_body);
    } else {
      // editgate's own refusals (401, 403, 413...) are not JSON-RPC: the
      // request gets them as an error with its id.
      std::string why;
      if (const json::object* o = v.if_object()) {
        const json::value* e = o->if_contains("error");
        const json::value* m = o->if_contains("message");
        if (e && e->is_string()) why = std::string(e->get_string());
        if (m && m->is_string()) why += (why.empty() ? "" : ": ") + std::string(m->get_string());
      }
      if (why.empty()) why = c->json_body.substr(0, 200);
      return fail(c, "the gateway answered HTTP " + std::to_string(c->status) + ": " + why);
    }
  }
  if (c->request && !c->answered && !c->cancel_sent)
    return fail(c, "the gateway answered HTTP " + std::to_string(c->status) + " without a response to this request");
  if (!c->request && c->status >= 300 && !c->internal)
    err_ << "editgate mcp: the gateway answered HTTP " << c->status << " to " << c->body.substr(0, 200) << '\n';
  release(c, c->parser->get().keep_alive());
}

// The connection broke. On a kept-alive connection before any answer, with
// the gateway still running, it was the gateway closing an idle connection
// under us: the call goes again on a new one. Otherwise the gateway went
// away: an error, and the next call finds (or starts) a gateway again.
void Bridge::broken(const CallPtr& c, beast::error_code ec, bool before_answer) {
  if (c->cancel_sent) return release(c, false);  // the gateway ends a cancelled call's answer so
  const bool same_gateway = endpoint_ && c->conn && endpoint_->generation == c->conn->generation;
  if (c->reused && before_answer && c->status == 0 && same_gateway && services::gateway_running(root_) &&
      ++c->attempts < 2) {
    c->conn.reset();
    return send(c);
  }
  if (same_gateway) forget_gateway();
  fail(c, "the gateway serving " + root_ + " closed the connection during the call (" + ec.message() +
              "); the next request finds or starts a gateway again");
}

void Bridge::fail(const CallPtr& c, const std::string& message) {
  if (!calls_.tracks(c)) return;
  if (c->request && !c->answered && !c->cancelled && !c->internal) {
    c->answered = true;
    out(bridge::error_line(c->facts.id, bridge::internal_error, message));
  } else if (!c->request && !c->internal) {
    err_ << "editgate mcp: " << message << '\n';
  }
  release(c, false);
}

void Bridge::release(const CallPtr& c, bool keep_connection) {
  if (!calls_.release(c)) return;
  if (c->conn && keep_connection && !c->cancelled && !stopping_) {
    keep(std::move(c->conn));
  } else if (c->conn) {
    beast::error_code ec;
    c->conn->stream.socket().close(ec);
  }
  if (c->then) std::exchange(c->then, nullptr)();
  maybe_exit();
}

// ---- a lost 2025-11-25 session --------------------------------------------

// The gateway forgot the session the call went with (it restarted, or the
// session was idle past its time): 404 with -32001. The stdio client's
// session is this process, which still runs, so the bridge initializes
// again as the client did, and the call goes once more.
bool Bridge::session_lost(const CallPtr& c, const json::value& answer) {
  if (c->status != 404 || c->internal || !c->facts.modern_version.empty() || c->sent_session.empty() ||
      initialize_.empty() || c->attempts >= 2 || !bridge::is_jsonrpc(answer))
    return false;
  const json::value* e = answer.get_object().if_contains("error");
  const json::value* code = e && e->is_object() ? e->get_object().if_contains("code") : nullptr;
  return code && code->is_int64() && code->as_int64() == -32001;
}

// A connection whose answer was read whole, for the next call to the same gateway.
void Bridge::keep(std::unique_ptr<Conn> conn) {
  if (endpoint_) return idle_.keep(std::move(conn), endpoint_->generation);
  beast::error_code ec;
  conn->stream.socket().close(ec);
}

void Bridge::initialize_again(const CallPtr& c) {
  // Its answer was read whole: the connection is kept for reuse.
  if (c->conn && c->parser && c->parser->is_done() && c->parser->get().keep_alive()) keep(std::move(c->conn));
  c->conn.reset();
  ++c->attempts;
  if (c->sent_session != session_id_) return dispatch(c);  // initialized again meanwhile
  after_initialize_.push_back(c);
  if (after_initialize_.size() > 1) return;  // an initialize is on its way
  err_ << "editgate mcp: the gateway lost the MCP session; initializing again\n";
  session_id_.clear();
  CallPtr init = internal_call(initialize_, http::verb::post);
  init->then = [this] {
    auto calls = std::exchange(after_initialize_, {});
    if (stopping_) return;
    if (session_id_.empty() || !endpoint_) {
      for (const CallPtr& w : calls) fail(w, "the gateway lost the MCP session and did not open a new one");
      return;
    }
    dispatch(internal_call(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", http::verb::post));
    for (const CallPtr& w : calls) dispatch(w);
  };
  dispatch(init);
}

void Bridge::out(std::string_view line) {
  if (stdout_gone_) return;
  if (!bridge::write_all(STDOUT_FILENO, line)) {
    stdout_gone_ = true;
    stop("standard output closed");
  }
}

// ---- the end -------------------------------------------------------------

CallPtr Bridge::internal_call(std::string body, http::verb verb) {
  auto c = std::make_shared<Call>();
  c->body = std::move(body);
  c->verb = verb;
  c->internal = true;
  boost::system::error_code ec;
  c->facts = bridge::facts_of(json::parse(c->body, ec));
  c->request = c->facts.has_id && !c->facts.method.empty();
  calls_.track(c);
  return c;
}

// Standard input ended (or a signal, or standard output closed): every call
// in flight is closed unanswered; a 2025-11-25 request still running is
// cancelled at the gateway (closing its stream does not stop it there) and
// the session ended; then the process exits, within stop_limit.
void Bridge::stop(const char* why) {
  if (stopping_) return;
  stopping_ = true;
  err_ << "editgate mcp: " << why << "; stopping\n";
  finder_.stop();
  idle_.clear();
  std::vector<CallPtr> open = calls_.open();
  std::vector<CallPtr> farewells;
  for (const CallPtr& c : open) {
    if (c->request && c->facts.modern_version.empty() && !c->cancel_sent && c->facts.method != "initialize" &&
        endpoint_ && !session_id_.empty())
      farewells.push_back(internal_call(
          json::serialize(json::object{{"jsonrpc", "2.0"},
                                       {"method", "notifications/cancelled"},
                                       {"params", json::object{{"requestId", c->facts.id},
                                                               {"reason", "the stdio client went away"}}}}),
          http::verb::post));
    c->cancelled = true;
    beast::error_code ec;
    if (c->conn) c->conn->stream.socket().close(ec);
    if (!c->conn) release(c, false);  // waiting for the gateway's address
  }
  if (endpoint_ && !session_id_.empty()) farewells.push_back(internal_call("", http::verb::delete_));
  for (const CallPtr& c : farewells) send(c);
  stop_timer_.expires_after(stop_limit);
  stop_timer_.async_wait([this](beast::error_code ec) {
    if (!ec) ioc_.stop();
  });
  maybe_exit();
}

void Bridge::maybe_exit() {
  if (stopping_ && calls_.empty()) ioc_.stop();
}

}  // namespace

int run_mcp(const McpArgs& args, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  std::string refusal;
  if (!root) {
    if (root.error().code != services::Error::not_found) {
      err << "editgate mcp: " << root.error().message << '\n';
      return 2;
    }
    refusal = root.error().message + " (an MCP client: start it in the project's folder, or add \"--root\", \"DIR\" "
                                     "to editgate's args in its MCP configuration)";
  }
  ::signal(SIGPIPE, SIG_IGN);  // a closed standard output is an error of write(), handled there
  // Owned by the reader thread too: it may outlive this function, blocked
  // in read() after a signal stopped the bridge.
  auto ioc = std::make_shared<net::io_context>(1);
  Bridge bridge(*ioc, root ? *root : std::string(), refusal, args.port, err);
  net::signal_set signals(*ioc, SIGINT, SIGTERM);
  signals.async_wait([&bridge](beast::error_code ec, int) {
    if (!ec) bridge.stop("stopped by a signal");
  });
  bridge.resolve();  // the gateway is found, or started, before the first message
  bridge::start_reader(STDIN_FILENO, bridge.gate, [ioc, b = &bridge](bridge::InputEvent e) {
    net::post(*ioc, [b, e = std::move(e)]() mutable { b->on_input(std::move(e)); });
  });
  ioc->run();
  return 0;
}

}  // namespace cli
