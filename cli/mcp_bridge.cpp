// The bridge's HTTP side: one io_context thread owns every call, the
// connection pool, the gateway's address and the 2025-11-25 session; the
// stdin reader thread only posts lines to it, and it alone writes standard
// output, so lines never interleave.
#include "cli/mcp_bridge.hpp"

#include "cli/mcp_launch.hpp"
#include "cli/mcp_stdio.hpp"
#include "cli/mcp_wire.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace cli {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::size_t max_requests = 64;       // requests in flight; past it a named error
constexpr std::size_t max_notifications = 64;  // notifications being posted; past it dropped, said on stderr
constexpr std::size_t max_idle = 8;            // kept-alive connections waiting for the next call
// Idle connections are dropped well before the gateway closes them
// (--header-timeout, 10 s by default), so a reused one is rarely closed
// under the request it carries.
constexpr auto idle_limit = 5s;
constexpr auto start_limit = 30s;  // a gateway started here must publish its port by then
constexpr auto stop_limit = 500ms;  // at the end, for the cancels and the session's DELETE

struct Endpoint {
  unsigned short port = 0;
  std::string authorization;
  std::string host;
  unsigned generation = 0;
};

struct Conn {
  explicit Conn(net::io_context& ioc) : stream(ioc) {}
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  unsigned generation = 0;
  std::chrono::steady_clock::time_point idle_since;
};

struct Call {
  std::string body;  // the client's line, as sent
  mcp::Facts facts;
  http::verb verb = http::verb::post;
  bool internal = false;     // the bridge's own (a cancel at the end, a new initialize): nothing is printed
  bool request = false;      // something answers it with its id
  enum { uncounted, counted_request, counted_notification } counted = uncounted;  // against the bounds
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
  mcp::SseReader events;
  std::unique_ptr<Conn> conn;
  http::request<http::string_body> req;
  std::optional<http::response_parser<http::buffer_body>> parser;
  std::array<char, 1 << 16> chunk;
};

using CallPtr = std::shared_ptr<Call>;

std::string last_line_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff from = size > 400 ? size - 400 : 0;
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  const std::size_t nl = tail.rfind('\n');
  return nl == std::string::npos ? tail : tail.substr(nl + 1);
}

// A pooled connection the gateway has closed (or written to unasked) reads
// as ready: it is not reused.
bool still_open(Conn& c) {
  pollfd p{c.stream.socket().native_handle(), POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 0;
}

class Bridge {
 public:
  // `refusal`: why there is no workspace to serve; every request is
  // answered with it, so the client shows it, and nothing is created.
  Bridge(net::io_context& ioc, std::string root, std::string refusal, unsigned short port, std::ostream& err)
      : ioc_(ioc), root_(std::move(root)), refusal_(std::move(refusal)), port_(port), err_(err), start_timer_(ioc),
        stop_timer_(ioc) {}

  void resolve();
  void on_input(mcp::InputEvent e);
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
  void poll_gateway();
  void gateway_ready(const services::Published& p);
  void gateway_failed(const std::string& message);
  void forget_gateway();
  void out(std::string_view line);
  void prepare(Call& c);
  CallPtr internal_call(std::string body, http::verb verb);
  bool session_lost(const CallPtr& c, const json::value& answer);
  void initialize_again(const CallPtr& c);
  void park(const CallPtr& c);
  void maybe_exit();

  net::io_context& ioc_;
  std::string root_;
  std::string refusal_;
  unsigned short port_;  // for a gateway started here
  std::ostream& err_;
  std::optional<Endpoint> endpoint_;
  unsigned generation_ = 0;
  bool resolving_ = false;
  bool started_ = false;
  pid_t child_ = -1;
  std::chrono::steady_clock::time_point start_deadline_;
  net::steady_timer start_timer_;
  net::steady_timer stop_timer_;
  std::deque<CallPtr> waiting_;  // for the gateway's address
  std::set<CallPtr> calls_;      // every call not released yet
  std::map<std::string, CallPtr> by_id_;  // requests in flight by their serialized id
  std::size_t requests_ = 0, notifications_ = 0;
  std::vector<std::unique_ptr<Conn>> idle_;
  std::string session_id_;        // 2025-11-25: from the initialize response
  std::string protocol_version_;  // 2025-11-25: the version initialize agreed on
  std::string initialize_;        // 2025-11-25: the client's initialize, sent again when the session is lost
  std::vector<CallPtr> after_initialize_;  // calls waiting for that
  bool stopping_ = false;
  bool stdout_gone_ = false;

 public:
  std::shared_ptr<mcp::InputGate> gate = std::make_shared<mcp::InputGate>(64);
};

// ---- standard input ------------------------------------------------------

void Bridge::on_input(mcp::InputEvent e) {
  gate->leave();
  if (stopping_) return;
  switch (e.kind) {
    case mcp::InputEvent::line: return on_line(std::move(e.text));
    case mcp::InputEvent::too_long:
      return out(mcp::error_line(nullptr, mcp::invalid_request,
                                 "payload_too_large: a line over " + std::to_string(mcp::max_message_bytes >> 20) +
                                     " MiB was not sent; it is skipped up to its line end"));
    case mcp::InputEvent::end: return stop("standard input ended");
  }
}

void Bridge::on_line(std::string line) {
  if (line.find_first_not_of(" \t") == std::string::npos) return;
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec) return out(mcp::error_line(nullptr, mcp::parse_error, "Parse error: " + ec.message()));
  auto c = std::make_shared<Call>();
  c->facts = mcp::facts_of(v);
  c->body = std::move(line);
  c->request = c->facts.has_id && !c->facts.method.empty();
  if (!c->facts.cancels.is_null()) {
    auto it = by_id_.find(json::serialize(c->facts.cancels));
    if (it != by_id_.end()) {
      const CallPtr& target = it->second;
      target->cancel_sent = true;
      // 2026-07-28: closing the request's stream is the cancellation.
      if (!target->facts.modern_version.empty()) {
        target->cancelled = true;
        if (target->conn) target->conn->stream.socket().close(ec);
      }
    }
  }
  if (c->request) {
    if (requests_ >= max_requests)
      return out(mcp::error_line(c->facts.id, mcp::internal_error,
                                 "too_many_requests: " + std::to_string(max_requests) +
                                     " requests are in flight already; send it again once one has ended"));
    ++requests_;
    c->counted = Call::counted_request;
    by_id_[json::serialize(c->facts.id)] = c;
    if (c->facts.method == "initialize" && c->facts.modern_version.empty()) initialize_ = c->body;
  } else {
    if (notifications_ >= max_notifications) {
      err_ << "editgate mcp: too_many_notifications: " << max_notifications
           << " are being posted already; dropped: " << c->body.substr(0, 200) << '\n';
      return;
    }
    ++notifications_;
    c->counted = Call::counted_notification;
  }
  calls_.insert(c);
  dispatch(c);
}

// ---- the gateway's address -----------------------------------------------

void Bridge::resolve() {
  if (resolving_) return;
  resolving_ = true;
  started_ = false;
  start_deadline_ = std::chrono::steady_clock::now() + start_limit;
  poll_gateway();
}

void Bridge::poll_gateway() {
  if (!refusal_.empty()) return gateway_failed(refusal_);
  auto published = services::read_published(root_);
  if (published) return gateway_ready(*published);
  if (published.error().code != services::Error::not_found) return gateway_failed(published.error().message);
  const auto now = std::chrono::steady_clock::now();
  const bool running = static_cast<bool>(services::gateway_running(root_));  // starting: not published yet
  if (!running && !started_) {
    if (child_ > 0) mcp::exited(child_);  // one started earlier that died: reaped
    auto pid = mcp::start_gateway(root_, port_);
    if (!pid) return gateway_failed(pid.error().message);
    child_ = *pid;
    started_ = true;
    start_deadline_ = now + start_limit;
    err_ << "editgate mcp: started a gateway for " << root_ << " (pid " << child_ << ", output in "
         << mcp::serve_log(root_) << "); it keeps running after this bridge ends\n";
  } else if (!running && mcp::exited(child_)) {
    return gateway_failed("the gateway started for " + root_ + " stopped at once: " +
                          last_line_of(mcp::serve_log(root_)) + " (see " + mcp::serve_log(root_) + ")");
  }
  if (now > start_deadline_)
    return gateway_failed("the gateway for " + root_ + " did not publish its port within " +
                          std::to_string(start_limit.count()) + " s (see " + mcp::serve_log(root_) + ")");
  start_timer_.expires_after(20ms);
  start_timer_.async_wait([this](beast::error_code ec) {
    if (!ec && !stopping_) poll_gateway();
  });
}

void Bridge::gateway_ready(const services::Published& p) {
  resolving_ = false;
  endpoint_ = Endpoint{p.port, "Bearer " + p.cookie, "127.0.0.1:" + std::to_string(p.port), ++generation_};
  idle_.clear();
  auto ready = std::move(waiting_);
  waiting_.clear();
  for (const CallPtr& c : ready) send(c);
}

void Bridge::gateway_failed(const std::string& message) {
  resolving_ = false;
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
  const Endpoint& ep = *endpoint_;
  c.req = {};
  c.sent_session.clear();
  c.req.method(c.verb);
  c.req.target("/mcp");
  c.req.version(11);
  c.req.keep_alive(true);
  c.req.set(http::field::host, ep.host);
  c.req.set(http::field::authorization, ep.authorization);
  c.req.set(http::field::accept, "application/json, text/event-stream");
  const mcp::Facts& f = c.facts;
  if (!f.modern_version.empty()) {
    c.req.set("MCP-Protocol-Version", f.modern_version);
    if (!f.method.empty()) c.req.set("Mcp-Method", f.method);
    if (f.name) c.req.set("Mcp-Name", mcp::header_value(*f.name));
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
  while (!idle_.empty()) {
    std::unique_ptr<Conn> conn = std::move(idle_.back());
    idle_.pop_back();
    if (conn->generation == endpoint_->generation && std::chrono::steady_clock::now() - conn->idle_since < idle_limit &&
        still_open(*conn)) {
      c->conn = std::move(conn);
      c->reused = true;
      return write(c);
    }
  }
  c->reused = false;
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
    if (calls_.count(c)) read_body(c);
  });
}

void Bridge::on_bytes(const CallPtr& c, std::string_view bytes) {
  if (c->sse) {
    if (!c->events.feed(bytes, [&](std::string data) { emit(c, data); }))
      fail(c, "payload_too_large: an event from the gateway is over " +
                  std::to_string(mcp::max_message_bytes >> 20) + " MiB");
    return;
  }
  if (c->json_body.size() + bytes.size() > mcp::max_message_bytes)
    return fail(c, "payload_too_large: the gateway's answer is over " + std::to_string(mcp::max_message_bytes >> 20) +
                       " MiB");
  c->json_body.append(bytes);
}

// One message from the gateway to standard output. The answer to a
// 2025-11-25 initialize also says which version later requests name.
void Bridge::emit(const CallPtr& c, std::string_view text) {
  json::value v;
  std::optional<std::string> line = mcp::as_line(text, &v);
  if (!line || !mcp::is_jsonrpc(v)) {
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
    std::optional<std::string> line = mcp::as_line(c->json_body, &v);
    if (line && session_lost(c, v)) return initialize_again(c);
    if (line && mcp::is_jsonrpc(v)) {
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
  if (!calls_.count(c)) return;
  if (c->request && !c->answered && !c->cancelled && !c->internal) {
    c->answered = true;
    out(mcp::error_line(c->facts.id, mcp::internal_error, message));
  } else if (!c->request && !c->internal) {
    err_ << "editgate mcp: " << message << '\n';
  }
  release(c, false);
}

void Bridge::release(const CallPtr& c, bool keep_connection) {
  if (!calls_.erase(c)) return;
  if (c->counted == Call::counted_request) {
    --requests_;
    auto it = by_id_.find(json::serialize(c->facts.id));
    if (it != by_id_.end() && it->second == c) by_id_.erase(it);
  } else if (c->counted == Call::counted_notification) {
    --notifications_;
  }
  if (c->conn && keep_connection && !c->cancelled && !stopping_ && c->conn->buffer.size() == 0 && endpoint_ &&
      c->conn->generation == endpoint_->generation && idle_.size() < max_idle) {
    c->conn->idle_since = std::chrono::steady_clock::now();
    idle_.push_back(std::move(c->conn));
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
      initialize_.empty() || c->attempts >= 2 || !mcp::is_jsonrpc(answer))
    return false;
  const json::value* e = answer.get_object().if_contains("error");
  const json::value* code = e && e->is_object() ? e->get_object().if_contains("code") : nullptr;
  return code && code->is_int64() && code->as_int64() == -32001;
}

// Keeps a call's connection for reuse when its answer was read whole.
void Bridge::park(const CallPtr& c) {
  if (c->conn && c->parser && c->parser->is_done() && c->parser->get().keep_alive() && endpoint_ &&
      c->conn->generation == endpoint_->generation && c->conn->buffer.size() == 0 && idle_.size() < max_idle) {
    c->conn->idle_since = std::chrono::steady_clock::now();
    idle_.push_back(std::move(c->conn));
  }
  c->conn.reset();
}

void Bridge::initialize_again(const CallPtr& c) {
  park(c);
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
  if (!mcp::write_all(STDOUT_FILENO, line)) {
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
  c->facts = mcp::facts_of(json::parse(c->body, ec));
  c->request = c->facts.has_id && !c->facts.method.empty();
  calls_.insert(c);
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
  start_timer_.cancel();
  idle_.clear();
  std::vector<CallPtr> open(calls_.begin(), calls_.end());
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
  mcp::start_reader(STDIN_FILENO, bridge.gate, [ioc, b = &bridge](mcp::InputEvent e) {
    net::post(*ioc, [b, e = std::move(e)]() mutable { b->on_input(std::move(e)); });
  });
  ioc->run();
  return 0;
}

}  // namespace cli
