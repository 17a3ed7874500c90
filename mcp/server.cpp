#include "mcp/server.hpp"

#include "services/gateway.hpp"
#include "mcp/result_text.hpp"
#include "mcp/rpc.hpp"
#include "mcp/tools.hpp"
#include "ops/dispatch.hpp"
#include "services/security.hpp"
#include "record/commit_messages.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/json.hpp>

#include <optional>

namespace mcp {

namespace json = boost::json;
namespace net = boost::asio;

namespace {

// The first `bytes` of `text`, never cut inside a UTF-8 sequence (JSON
// strings on the wire stay valid UTF-8).
std::string head_of(const std::string& text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes);
}

}  // namespace

// One tools/call: the op's replies become progress notifications and the
// tool result. Its state is touched on its strand only.
struct McpServer::Call : McpPending, std::enable_shared_from_this<McpServer::Call> {
  Call(McpServer& server, net::any_io_executor strand) : server(server), strand(std::move(strand)), ticker(this->strand) {}

  McpServer& server;
  net::any_io_executor strand;
  std::shared_ptr<McpSession> session;  // the stateless one for a 2026-07-28 call
  std::shared_ptr<ops::ConnectionState> conn;
  json::value id;
  std::string key;  // the op's id for it (OpCall::request_id), unique in the gateway
  std::optional<json::value> progress_token;
  bool modern = false;
  const ops::OpSpec* op = nullptr;  // the tool's
  json::object target;  // the page or session it runs in, for an interrupt
  std::string op_session;
  std::shared_ptr<McpStream> out;
  json::array parts;
  std::size_t kept_bytes = 0;  // of parts, as JSON
  bool dropping = false;       // past output_bytes_kept: parts' last counts the rest
  std::int64_t progress = 0;
  bool finished = false;
  bool cancelled = false;
  net::steady_timer ticker;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  void notify_progress(std::string message) {
    if (!progress_token || finished || cancelled) return;
    progress += 1;
    json::object params{{"progressToken", *progress_token}, {"progress", progress}, {"message", std::move(message)}};
    out->event(rpc_notification("notifications/progress", std::move(params)));
  }

  // What a page prints, a block's result: sent as progress and kept for the
  // result, while the parts kept are under output_bytes_kept.
  void part(json::object body) {
    if (finished || cancelled) return;
    std::string text = json::serialize(body);
    keep(std::move(body), text.size());
    if (text.size() > progress_message_bytes) text = head_of(text, progress_message_bytes) + "…";
    notify_progress(std::move(text));
  }

  // 100,000 failing blocks are 300 MB of parts: past the bound a part is
  // counted in a last one, {"parts_dropped", "bytes_dropped", "message"}.
  void keep(json::object body, std::size_t bytes) {
    if (!dropping && kept_bytes + bytes <= server.limits_.output_bytes_kept) {
      kept_bytes += bytes;
      parts.emplace_back(std::move(body));
      return;
    }
    if (!dropping) {
      dropping = true;
      parts.emplace_back(json::object{
          {"parts_dropped", 0},
          {"bytes_dropped", 0},
          {"message", "the parts past the first " + std::to_string(server.limits_.output_bytes_kept >> 20) +
                          " MiB of this call's output were sent as progress only"}});
    }
    json::object& dropped = parts.back().as_object();
    dropped["parts_dropped"] = dropped["parts_dropped"].to_number<std::uint64_t>() + 1;
    dropped["bytes_dropped"] = dropped["bytes_dropped"].to_number<std::uint64_t>() + bytes;
  }

  // An eval's "executing (Ns)" ticks, each second while it runs.
  void tick() {
    ticker.expires_after(std::chrono::seconds(1));
    ticker.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->finished || self->cancelled) return;
      const auto s = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - self->started);
      self->notify_progress("executing (" + std::to_string(s.count()) + "s)");
      self->tick();
    });
  }

  void finish(json::object structured, bool error) {
    if (finished) return;
    // An edit run that applied some blocks and not others is not refused,
    // but the model has blocks to fix: its result is an error to act on.
    if (const json::value* c = structured.if_contains("counts"); c && c->is_object())
      for (std::string_view k : {"failed", "not_in_context"})
        if (const json::value* n = c->get_object().if_contains(k); n && n->is_number() && n->to_number<double>() > 0)
          error = true;
    finished = true;
    ticker.cancel();
    // The block results are the run's own list; what a page printed stays in `out`.
    json::array blocks, printed;
    for (json::value& p : parts) {
      if (json::value* b = p.get_object().if_contains("block")) blocks.push_back(std::move(*b));
      else printed.push_back(std::move(p));
    }
    if (!blocks.empty()) structured["blocks"] = std::move(blocks);
    if (!printed.empty()) structured["out"] = std::move(printed);
    if (cancelled) out->drop();
    else out->answer(200, rpc_result(id, tool_result(std::move(structured), error), modern));
    server.call_ended(*this);
  }

  // The text a model reads (result_text) and the whole reply for programs;
  // past result_inline_bytes of JSON, the reply is kept aside and linked.
  json::object tool_result(json::object structured, bool error) {
    // A screenshot's PNG goes as an image the model sees, not as text to read.
    std::optional<json::object> image;
    if (auto it = structured.find("png"); it != structured.end() && it->value().is_string()) {
      image = json::object{{"type", "image"}, {"data", std::move(it->value())}, {"mimeType", "image/png"}};
      structured.erase(it);
    }
    std::string text = result_text(structured, op && op->interruptible ? TextStyle::eval : TextStyle::reply);
    std::string whole = json::serialize(structured);
    json::object result;
    if (whole.size() > result_inline_bytes) {
      const std::size_t bytes = whole.size();
      std::string uri = server.keep_result(std::move(whole));
      json::object kept{{"truncated", true}, {"bytes", bytes}, {"resource", uri}};
      for (std::string_view k : {"error", "message"})
        if (const json::value* v = structured.if_contains(k)) kept[k] = *v;
      result["content"] = json::array{
          json::object{{"type", "text"},
                       {"text", "The result is " + std::to_string(bytes) + " bytes of JSON, over the " +
                                    std::to_string(result_inline_bytes / 1024) +
                                    " KiB a tool result carries; read it whole at " + uri +
                                    " (resources/read). It begins:\n" + head_of(text, 2048)}},
          json::object{{"type", "resource_link"},
                       {"uri", uri},
                       {"name", "result"},
                       {"mimeType", "application/json"},
                       {"size", bytes}}};
      result["structuredContent"] = std::move(kept);
    } else {
      result["content"] = json::array{json::object{{"type", "text"}, {"text", std::move(text)}}};
      result["structuredContent"] = std::move(structured);
    }
    if (image) result["content"].as_array().push_back(std::move(*image));
    if (error) result["isError"] = true;
    return result;
  }

  // notifications/cancelled, or a 2026-07-28 client gone: an eval's job is
  // interrupted; nothing more is sent for the request.
  void cancel() {
    net::post(strand, [self = shared_from_this()] {
      if (self->finished || self->cancelled) return;
      self->cancelled = true;
      self->ticker.cancel();
      if (self->op->interruptible) self->server.interrupt(*self);
    });
  }

  void disconnected() override {
    if (modern) cancel();
  }

  static constexpr std::size_t progress_message_bytes = 8 * 1024;
};

namespace {

// The op's replies, as the call's.
class CallReplies final : public services::Replies {
 public:
  explicit CallReplies(std::shared_ptr<McpServer::Call> call) : call_(std::move(call)) {}
  net::any_io_executor executor() const override { return call_->strand; }
  void part(json::object body) override { call_->part(std::move(body)); }
  void done(json::object body) override { call_->finish(std::move(body), false); }
  void fail(services::Failure failure, json::object body) override {
    body["error"] = to_string(failure.code);
    body["message"] = failure.message;
    call_->finish(std::move(body), true);
  }

 private:
  std::shared_ptr<McpServer::Call> call_;
};

// Replies nobody reads: an interrupt the server sends for a cancelled call.
class Unread final : public services::Replies {
 public:
  explicit Unread(net::any_io_executor ex) : ex_(std::move(ex)) {}
  net::any_io_executor executor() const override { return ex_; }
  void part(json::object) override {}
  void done(json::object) override {}
  void fail(services::Failure, json::object) override {}

 private:
  net::any_io_executor ex_;
};

}  // namespace

McpServer::McpServer(services::Gateway& gw, net::any_io_executor ex, McpLimits limits)
    : gw_(gw), ex_(std::move(ex)), limits_(limits), stateless_(std::make_shared<McpSession>()) {
  stateless_->strand = net::make_strand(ex_);
  stateless_->conn = std::make_shared<ops::ConnectionState>(gw_.worker(), "");
  stateless_->last_used = std::chrono::steady_clock::now();
}

McpServer::~McpServer() = default;

bool McpServer::end_session(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return false;
  std::shared_ptr<McpSession> s = it->second;
  sessions_.erase(it);
  for (auto& [k, c] : s->calls)
    if (auto call = c.lock()) call->cancel();  // posted to its strand
  gw_.sessions().release(s->conn.get(), "", {});
  return true;
}

std::shared_ptr<McpServer::McpSession> McpServer::session(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  it->second->last_used = std::chrono::steady_clock::now();
  return it->second;
}

std::shared_ptr<McpServer::McpSession> McpServer::open_session() {
  auto s = std::make_shared<McpSession>();
  s->id = repl::random_hex(32);
  s->strand = net::make_strand(ex_);
  s->conn = std::make_shared<ops::ConnectionState>(gw_.worker(), record::new_session_id());
  s->last_used = std::chrono::steady_clock::now();
  std::vector<std::shared_ptr<McpSession>> dropped;
  // Idle ones past their time go; past the bound, the one idle longest.
  const auto now = s->last_used;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second->calls.empty() && now - it->second->last_used > limits_.session_idle) {
      dropped.push_back(it->second);
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  if (sessions_.size() >= limits_.sessions) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second->calls.empty() && (oldest == sessions_.end() || it->second->last_used < oldest->second->last_used))
        oldest = it;
    if (oldest == sessions_.end()) return nullptr;
    dropped.push_back(oldest->second);
    sessions_.erase(oldest);
  }
  sessions_[s->id] = s;
  for (auto& d : dropped) gw_.sessions().release(d->conn.get(), "", {});
  return s;
}

std::string McpServer::keep_result(std::string text) {
  std::string uri = "editgate://result/" + repl::random_hex(16);
  result_bytes_ += text.size();
  results_.emplace_back(uri, std::move(text));
  while (results_.size() > limits_.results_kept || (result_bytes_ > limits_.result_bytes_kept && results_.size() > 1)) {
    result_bytes_ -= results_.front().second.size();
    results_.pop_front();
  }
  return uri;
}

std::optional<std::string> McpServer::kept_result(const std::string& uri) const {
  for (const auto& [u, text] : results_)
    if (u == uri) return text;
  return std::nullopt;
}

std::shared_ptr<McpPending> McpServer::call_tool(const McpTool& tool, ToolCall args,
                                                 const CallContext& ctx) {
  // 2026-07-28 calls share one state, as one client's: a realm one of them
  // opened is the next one's to use.
  const std::shared_ptr<McpSession>& session = ctx.session ? ctx.session : stateless_;
  auto call = std::make_shared<Call>(*this, session->strand);
  call->session = session;
  call->conn = session->conn;
  call->id = ctx.id;
  call->progress_token = ctx.progress_token;
  call->modern = ctx.modern;
  call->op = tool.op;
  call->out = ctx.out;
  if (const json::value* page = args.params.if_contains("page")) call->target["page"] = *page;
  call->op_session = !args.session.empty() ? args.session : call->conn->id;
  // A model that names no author: the commit is the client's, by its name.
  if (!ctx.client.empty() && takes_author(tool) && !args.params.contains("agent")) args.params["agent"] = ctx.client;
  // The op knows a call by a key of its own: clients number their
  // requests alike, and an interrupt must find this one.
  call->key = "mcp-" + std::to_string(++calls_made_);
  if (session->calls.size() >= limits_.calls_per_session) {
    net::post(call->strand, [call, n = limits_.calls_per_session] {
      call->finish({{"error", to_string(services::Error::too_many_requests)},
                    {"message", "this session runs " + std::to_string(n) + " tool calls already"}},
                   true);
    });
    return nullptr;
  }
  session->calls[call->key] = call;
  net::post(call->strand, [this, call, &op = *tool.op, args = std::move(args)]() mutable {
    if (call->progress_token && op.interruptible) call->tick();
    ops::Envelope env{"MCP", std::nullopt, json::serialize(json::value(call->key))};
    if (!args.session.empty()) env.session = std::move(args.session);
    dispatch(gw_, op, std::move(env), std::move(args.params), call->conn, std::make_shared<CallReplies>(call));
  });
  return call;
}

void McpServer::interrupt(Call& call) {
  const ops::OpSpec* op = ops::find_op("interrupt");
  json::object params = call.target;
  params["interrupt-id"] = call.key;
  ops::Envelope env{"MCP"};
  if (call.op_session != call.conn->id) env.session = call.op_session;
  dispatch(gw_, *op, std::move(env), std::move(params), call.conn, std::make_shared<Unread>(call.strand));
}

void McpServer::call_ended(Call& call) {
  McpSession& s = *call.session;
  s.calls.erase(call.key);
  s.last_used = std::chrono::steady_clock::now();
  // The sessions stateless calls touched are nobody's while none runs:
  // they expire unless used again.
  if (call.modern && s.calls.empty()) gw_.sessions().release(s.conn.get(), "", {});
}

void McpServer::cancel(const std::string& session_id, const json::value& request_id) {
  auto s = sessions_.find(session_id);
  if (s == sessions_.end()) return;
  for (auto& [key, c] : s->second->calls)
    if (auto live = c.lock(); live && live->id == request_id) live->cancel();  // posted to its strand
}

}  // namespace mcp
