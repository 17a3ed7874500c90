#include "ops/dispatcher.hpp"

#include "ops/dispatch.hpp"

#include "ops/legacy.hpp"
#include "ops/handlers.hpp"
#include "services/target.hpp"

#include <boost/json.hpp>

#include <boost/asio/post.hpp>

#include <algorithm>
#include <optional>

namespace ops {

namespace json = boost::json;

namespace {

constexpr std::string_view door = "WebSocket";

// The key of a request id in OpDispatcher's running set; "" without one.
std::string id_key(const json::object& echo) {
  const json::value* id = echo.if_contains("id");
  return id ? json::serialize(*id) : std::string();
}

// What every reply to a request echoes: its id and session, as sent.
json::object echo_of(const json::object& msg) {
  json::object echo;
  for (std::string_view k : {"id", "session"})
    if (const json::value* e = msg.if_contains(k)) echo[k] = *e;
  return echo;
}

// One request's replies: each with the request's id and session; the final
// one with its status flags (mark_final). A request `within` another one
// still running under the same id (stdin to its eval) has no end of its
// own: its success says nothing (the running request's messages answer),
// and its failure is an error without "done", which would end the other.
class WsReplies final : public services::Replies {
 public:
  // `tracked`: the request's id is in the dispatcher's running set until
  // its final reply. `open_bytes`: the request counts among the
  // dispatcher's open ones (with its message's size) until then.
  WsReplies(std::weak_ptr<OpDispatcher> d, boost::asio::any_io_executor ex, json::object echo, bool within = false,
            bool tracked = false, std::optional<std::size_t> open_bytes = std::nullopt)
      : d_(std::move(d)), ex_(std::move(ex)), echo_(std::move(echo)), within_(within), tracked_(tracked),
        open_bytes_(open_bytes) {}
  // An op that dropped its replies without a final one (a connection's end)
  // still gives its place back, on the dispatcher's executor.
  ~WsReplies() override {
    if (open_bytes_)
      boost::asio::post(ex_, [d = d_, n = *open_bytes_] {
        if (auto live = d.lock()) live->closed(n);
      });
  }
  boost::asio::any_io_executor executor() const override { return ex_; }
  void part(json::object body) override { send(std::move(body)); }
  void done(json::object body) override {
    if (within_) return;
    services::mark_final(body, std::nullopt);
    send(std::move(body));
    finished();
  }
  void fail(services::Failure failure, json::object body) override {
    services::mark_final(body, failure);
    if (within_) body["status"] = json::array{"error"};
    send(std::move(body));
    if (!within_) finished();
  }

 private:
  // A connection that is gone takes no replies.
  void send(json::object body) {
    if (auto d = d_.lock()) d->send(echo_, std::move(body));
  }
  void finished() {
    auto d = d_.lock();
    if (d && tracked_) d->finished(id_key(echo_));
    if (d && open_bytes_) d->closed(*open_bytes_);
    open_bytes_.reset();
  }
  std::weak_ptr<OpDispatcher> d_;
  boost::asio::any_io_executor ex_;
  json::object echo_;
  bool within_;
  bool tracked_;
  std::optional<std::size_t> open_bytes_;
};

}  // namespace

services::Result<std::string> check_auth(std::string_view text, std::string_view cookie) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object())
    return services::Failure{services::Error::bad_json, "the first message must be {\"type\":\"auth\",\"cookie\":\"...\"}"};
  const json::object& o = v.get_object();
  const json::value* type = o.if_contains("type");
  const json::value* given = o.if_contains("cookie");
  if (!type || !type->is_string() || type->get_string() != "auth")
    return services::Failure{services::Error::unauthorized, "the first message must be {\"type\":\"auth\",\"cookie\":\"...\"}"};
  if (!given || !given->is_string())
    return services::Failure{services::Error::unauthorized, "the auth message has no cookie; it is in the gateway's cookie file (`editgate where` names it)"};
  // The cookie file ends in a newline, and a client may send the file as it
  // is: white space around the cookie is not part of it (a cookie is hex).
  std::string_view sent = given->get_string();
  const std::string_view space = " \t\r\n";
  sent.remove_prefix(std::min(sent.size(), sent.find_first_not_of(space)));
  sent.remove_suffix(sent.size() - std::min(sent.size(), sent.find_last_not_of(space) + 1));
  if (!services::constant_time_equal(sent, cookie))
    return services::Failure{services::Error::unauthorized, "wrong cookie; the right one is in the gateway's cookie file (`editgate where` names it)"};
  const json::value* resume = o.if_contains("resume");
  if (!resume || resume->is_null()) return std::string();
  if (!resume->is_string() || !services::valid_name(resume->get_string()))
    return services::Failure{services::Error::bad_request, "resume must be a session id: 1-64 letters, digits, '.', '_' or '-'"};
  return std::string(resume->get_string());
}

services::Result<json::object> parse_message(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return services::Failure{services::Error::bad_json, "the message is not JSON (" + ec.message() + ")"};
  if (!v.is_object()) return services::Failure{services::Error::bad_json, "a request is a JSON object with an \"op\""};
  return std::move(v.get_object());
}

CheckedRequest check_request(std::string_view text) {
  auto msg = parse_message(text);
  if (!msg) {
    CheckedRequest r;
    r.failure = msg.error();
    return r;
  }
  return check_message(std::move(*msg));
}

CheckedRequest check_message(json::object msg) {
  CheckedRequest r;
  auto refuse = [&](services::Failure f) {
    r.failure = std::move(f);
    return std::move(r);
  };
  r.msg = std::move(msg);
  r.echo = echo_of(r.msg);
  const json::value* op_name = r.msg.if_contains("op");
  if (!op_name || !op_name->is_string()) return refuse({services::Error::missing_param, "the request has no \"op\""});
  const OpSpec* op = find_op(op_name->get_string());
  if (!op)
    return refuse({services::Error::unknown_op,
                   "no op \"" + std::string(op_name->get_string()) + "\"; send {\"op\":\"describe\"} for the list"});
  // The envelope; an `id` is a parameter only where the op is keyed by it.
  bool takes_id = false;
  for (const Param& p : op->params) takes_id = takes_id || p.name == "id";
  for (const auto& kv : r.msg)
    if (kv.key() != "op" && kv.key() != "session" && (kv.key() != "id" || takes_id)) r.params[kv.key()] = kv.value();
  if (const json::value* s = r.msg.if_contains("session"); s && (!s->is_string() || !services::valid_name(s->get_string())))
    return refuse({services::Error::bad_request, "session must be 1-64 letters, digits, '.', '_' or '-'"});
  r.op = op->name;
  return r;
}

OpDispatcher::OpDispatcher(services::Gateway& gateway, boost::asio::any_io_executor ex, std::string id, Send send,
                           std::optional<services::Grade> dashboard)
    : gw_(gateway), ex_(std::move(ex)), send_(std::move(send)),
      conn_(std::make_shared<ConnectionState>(gateway.worker(), std::move(id))) {
  conn_->dashboard = dashboard.has_value();
  conn_->person = dashboard == services::Grade::person;
}

services::Result<json::object> OpDispatcher::start_session(const std::string& resume) {
  close_realms(gw_, gw_.sessions().expire());
  json::object started{{"op", "session-started"}};
  if (!resume.empty()) {
    auto back = gw_.sessions().resume(resume, conn_.get(), conn_->context);
    if (back) {
      conn_->id = resume;
      started["session"] = resume;
      started["resumed"] = true;
      started["page"] = back->page.empty() ? json::value(nullptr) : json::value(back->page);
      return started;
    }
    // A new session, and why not the one asked for: a client that lost
    // its session (the gateway restarted, it expired) keeps working.
    started["resumed"] = false;
    started["reason"] = to_string(back.error().code);
    started["message"] = "cannot resume: " + back.error().message + "; this is a new session";
  }
  if (auto made = gw_.sessions().start(conn_->id, conn_.get()); !made) return made.error();
  started["session"] = conn_->id;
  // The dashboard's page offers the person's decisions only where they work.
  if (conn_->dashboard) started["can_approve"] = conn_->person;
  return started;
}

void OpDispatcher::send(const json::object& echo, json::object body) {
  if (ended_) return;
  json::object out = echo;
  for (auto& kv : body) out[kv.key()] = std::move(kv.value());
  send_(json::serialize(out));
}

void OpDispatcher::refuse(services::Error code, const std::string& message) { WsReplies(weak_from_this(), ex_, {}).fail({code, message}, {}); }

void OpDispatcher::finished(const std::string& key) {
  if (!key.empty()) running_.erase(key);
}

bool OpDispatcher::room_for(std::size_t bytes) const {
  return open_ < gw_.limits().ws_open_requests && open_bytes_ + bytes <= gw_.limits().ws_open_request_bytes;
}

void OpDispatcher::closed(std::size_t bytes) {
  open_ -= std::min<std::size_t>(open_, 1);
  open_bytes_ -= std::min(open_bytes_, bytes);
}

void OpDispatcher::handle(std::string_view text) {
  if (ending_) return;
  auto msg = parse_message(text);
  const bool legacy = msg && is_legacy(*msg);
  CheckedRequest checked;
  if (!msg) {
    checked.failure = msg.error();
  } else if (!legacy) {
    checked = check_message(std::move(*msg));
  } else if (auto request = from_legacy(*msg)) {
    checked = check_message(std::move(*request));  // the request as the table knows it
  } else {
    checked.echo = echo_of(*msg);
    checked.failure = request.error();
  }
  // A request that reuses the id of one still running must not end it:
  // stdin to a running eval is answered by the eval; anything else is
  // refused without "done".
  const std::string key = id_key(checked.echo);
  const auto running = key.empty() ? running_.end() : running_.find(key);
  const bool within = running != running_.end();
  const OpSpec* op = checked.failure ? nullptr : find_op(checked.op);
  // Ops keyed by their id (the streamed edit's) reuse it by design.
  const bool keyed = op && std::any_of(op->params.begin(), op->params.end(), [](const Param& p) { return p.name == "id"; });
  const bool tracked = op && !within && !keyed && !key.empty();
  if (op && !within && !room_for(text.size())) {
    const services::ServeLimits& l = gw_.limits();
    return WsReplies(weak_from_this(), ex_, checked.echo)
        .fail({services::Error::too_many_requests,
               std::to_string(open_) + " requests of this connection (" + std::to_string(open_bytes_) +
                   " bytes) wait for their final reply; at most " + std::to_string(l.ws_open_requests) + " and " +
                   std::to_string(l.ws_open_request_bytes) + " bytes: wait for replies before sending more"},
              {});
  }
  std::optional<std::size_t> counted;
  if (op && !within) {
    ++open_;
    open_bytes_ += text.size();
    counted = text.size();
  }
  std::shared_ptr<services::Replies> out;
  if (legacy) {
    auto send = [d = weak_from_this(), echo = checked.echo](json::object body) {
      if (auto self = d.lock()) self->send(echo, std::move(body));
    };
    auto done = [d = weak_from_this(), key, tracked, counted] {
      auto self = d.lock();
      if (self && tracked) self->finished(key);
      if (self && counted) self->closed(*counted);
    };
    out = legacy_replies(ex_, std::move(send), std::move(done));
  } else {
    out = std::make_shared<WsReplies>(weak_from_this(), ex_, checked.echo, within, tracked, counted);
  }
  if (!op) return out->fail(*checked.failure, {});
  if (within && !(op->name == "stdin" && running->second == "eval"))
    return out->fail({services::Error::conflict, "request " + key + " is still running (" + running->second +
                                           "); give this request an id of its own"});
  if (tracked) running_.emplace(key, std::string(op->name));
  const json::value* s = checked.msg.if_contains("session");
  Envelope env{std::string(conn_->dashboard ? "dashboard" : door), std::nullopt, key};
  if (s) env.session = std::string(s->get_string());
  dispatch(gw_, *op, std::move(env), std::move(checked.params), conn_, std::move(out));
}

void OpDispatcher::end(services::Error why, bool report, std::function<void()> then) {
  if (ending_) {
    if (then) then();
    return;
  }
  ending_ = true;
  gw_.sessions().release(conn_.get(), conn_->id, conn_->context);
  end_open_edits(gw_, conn_, ex_, door, why, report, [self = shared_from_this(), then = std::move(then)] {
    self->ended_ = true;
    if (then) then();
  });
}

}  // namespace ops
