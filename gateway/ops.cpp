#include "gateway/ops.hpp"

#include "editproto/unicode.hpp"
#include "gateway/edit_run.hpp"
#include "record/edit_log.hpp"
#include "gateway/query.hpp"
#include "record/run_report.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <map>

#ifndef EDITGATE_VERSION
#define EDITGATE_VERSION "0.0.0"
#endif

namespace editgate {

namespace json = boost::json;

struct OpSession::Request {
  json::object msg;
  json::object echo;  // id and session, as the client sent them
};

// What one engine step of an edit produced, carried back to the strand.
struct OpSession::Step {
  std::optional<Failure> failure;
  std::vector<editproto::BlockResult> blocks;
  std::optional<record::RunReport> report;  // set when the run ended
};

struct OpSession::Op {
  std::string_view name;
  std::vector<std::string_view> params;
  std::vector<std::string_view> optional;
  void (OpSession::*run)(Request&);
  std::string_view doc;
};

namespace {

constexpr std::string_view protocol_version = "1.0";

// The type every parameter must have, whatever op it is given to.
enum class Kind { string, name, boolean, strings, count, fuzz, millis };

Kind kind_of(std::string_view param) {
  static const std::map<std::string_view, Kind> kinds = {
      {"text", Kind::string},    {"cookie", Kind::string},  {"action", Kind::string},
      {"agent", Kind::name},     {"of_session", Kind::name}, {"dry_run", Kind::boolean},
      {"context", Kind::strings}, {"files", Kind::strings}, {"limit", Kind::count},
      {"fuzz", Kind::fuzz},      {"id", Kind::string},      {"silent", Kind::boolean},
      {"timeout", Kind::millis}};
  auto it = kinds.find(param);
  return it == kinds.end() ? Kind::string : it->second;
}

std::optional<std::string> check_kind(std::string_view param, const json::value& v) {
  const std::string p(param);
  switch (kind_of(param)) {
    case Kind::string:
      if (!v.is_string()) return p + " must be a string";
      break;
    case Kind::name:
      if (!v.is_string() || !valid_name(v.get_string())) return p + " must be 1-64 letters, digits, '.', '_' or '-'";
      break;
    case Kind::boolean:
      if (!v.is_bool()) return p + " must be true or false";
      break;
    case Kind::strings:
      if (!v.is_array()) return p + " must be an array of file paths";
      for (const json::value& e : v.get_array())
        if (!e.is_string() || e.get_string().empty()) return p + " must be an array of file paths";
      break;
    case Kind::count:
      if (!v.is_int64() || v.get_int64() < 1 || v.get_int64() > 10000) return p + " must be a whole number, 1 to 10000";
      break;
    case Kind::fuzz:
      if (!v.is_string() || v.get_string() != "whitespace") return p + " accepts only \"whitespace\"";
      break;
    case Kind::millis:
      if (!v.is_int64() || v.get_int64() < 1 || v.get_int64() > 3'600'000)
        return p + " must be a whole number of milliseconds, 1 to 3600000";
      break;
  }
  return std::nullopt;
}

std::vector<std::string> strings(const json::value& v) {
  std::vector<std::string> out;
  for (const json::value& e : v.get_array()) out.emplace_back(e.get_string());
  return out;
}

json::array to_array(const std::set<std::string>& s) {
  json::array a;
  for (const std::string& f : s) a.emplace_back(f);
  return a;
}

}  // namespace

Result<void> check_auth(std::string_view text, std::string_view cookie) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object())
    return Failure{Error::bad_json, "the first message must be {\"type\":\"auth\",\"cookie\":\"...\"}"};
  const json::object& o = v.get_object();
  const json::value* type = o.if_contains("type");
  const json::value* given = o.if_contains("cookie");
  if (!type || !type->is_string() || type->get_string() != "auth")
    return Failure{Error::unauthorized, "the first message must be {\"type\":\"auth\",\"cookie\":\"...\"}"};
  if (!given || !given->is_string())
    return Failure{Error::unauthorized, "the auth message has no cookie; it is in .editgate/cookie"};
  if (!constant_time_equal(given->get_string(), cookie))
    return Failure{Error::unauthorized, "wrong cookie; the right one is in .editgate/cookie"};
  return {};
}

const std::vector<OpSession::Op>& OpSession::ops() {
  static const std::vector<Op> table = {
      {"describe", {}, {}, &OpSession::op_describe, "the ops, their parameters and the protocol version"},
      {"health", {}, {}, &OpSession::op_health, "workspace id and a nonce new at every gateway start"},
      {"edit", {"text"}, {"dry_run", "agent", "context", "fuzz"}, &OpSession::op_edit,
       "apply the edit blocks in text: a block message each, then done with the commit"},
      {"edit-begin", {"id"}, {"dry_run", "agent", "context", "fuzz"}, &OpSession::op_edit_begin,
       "open a streamed edit; its chunks and end carry the same id"},
      {"edit-chunk", {"id", "text"}, {}, &OpSession::op_edit_chunk,
       "more text of a streamed edit; a block message for each block it completes"},
      {"edit-end", {"id"}, {}, &OpSession::op_edit_end, "end a streamed edit: done with the commit"},
      {"context", {"action"}, {"files"}, &OpSession::op_context,
       "add, remove, clear or list the files this session has seen (not_in_context)"},
      {"history", {}, {"limit", "agent", "of_session"}, &OpSession::op_history,
       "editgate's commits, newest first, as `editgate log --format json`"},
      {"eval", {"page", "code"}, {"timeout", "agent", "silent"}, &OpSession::op_eval,
       "run code in a page: out messages while it runs, then its value or error; logged and committed unless silent"},
      {"pages", {}, {}, &OpSession::op_pages, "the pages with their state and log"},
      {"interrupt", {"page"}, {}, &OpSession::op_interrupt,
       "stop the page's running job: result interrupted, idle or not-interruptible"},
      {"complete", {"page", "code"}, {}, &OpSession::op_complete, "property names that complete code, from the page"},
      {"stdin", {"page", "text"}, {}, &OpSession::op_stdin, "answer a page's need-input (prompt)"},
      {"shutdown", {"cookie"}, {}, &OpSession::op_shutdown, "stop the gateway cleanly"},
  };
  return table;
}

json::object describe_ops() {
  json::object ops;
  for (const OpSession::Op& op : OpSession::ops()) {
    json::array params, optional;
    for (std::string_view p : op.params) params.emplace_back(p);
    for (std::string_view p : op.optional) optional.emplace_back(p);
    json::object o{{"params", std::move(params)}, {"doc", op.doc}};
    if (!optional.empty()) o["optional"] = std::move(optional);
    ops[op.name] = std::move(o);
  }
  return {{"ops", std::move(ops)},
          {"versions", json::object{{"protocol", protocol_version}, {"editgate", EDITGATE_VERSION}}}};
}

OpSession::OpSession(Gateway& gateway, boost::asio::any_io_executor ex, std::string id, Send send)
    : gw_(gateway), ex_(std::move(ex)), id_(std::move(id)), send_(std::move(send)) {}

OpSession::~OpSession() {
  // Edit runs belong to the engine's thread, even in their last moment.
  if (!streams_.empty()) gw_.engine().post([streams = std::move(streams_)] {});
}

void OpSession::reply(const json::object& echo, json::object body) {
  if (ended_) return;
  json::object out = echo;
  for (auto& kv : body) out[kv.key()] = std::move(kv.value());
  send_(json::serialize(out));
}

void OpSession::fail(const json::object& echo, Error code, const std::string& message) {
  reply(echo, {{"error", std::string(to_string(code)) + ": " + editproto::unicode::to_valid_utf8(message)},
               {"reason", to_string(code)},
               {"status", json::array{"done", "error"}}});
}

void OpSession::refuse(Error code, const std::string& message) { fail({}, code, message); }

CheckedRequest check_request(std::string_view text) {
  CheckedRequest r;
  auto refuse = [&](Error code, std::string message) {
    r.failure = Failure{code, std::move(message)};
    return std::move(r);
  };
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return refuse(Error::bad_json, "the message is not JSON (" + ec.message() + ")");
  if (!v.is_object()) return refuse(Error::bad_json, "a request is a JSON object with an \"op\"");
  r.msg = std::move(v.get_object());
  for (std::string_view k : {"id", "session"})
    if (const json::value* e = r.msg.if_contains(k)) r.echo[k] = *e;
  const json::value* op_name = r.msg.if_contains("op");
  if (!op_name || !op_name->is_string()) return refuse(Error::missing_param, "the request has no \"op\"");
  const OpSession::Op* op = nullptr;
  for (const OpSession::Op& o : OpSession::ops())
    if (o.name == op_name->get_string()) op = &o;
  if (!op)
    return refuse(Error::unknown_op, "no op \"" + std::string(op_name->get_string()) +
                                         "\"; send {\"op\":\"describe\"} for the list");
  const std::string name(op->name);
  for (std::string_view p : op->params)
    if (!r.msg.contains(p)) return refuse(Error::missing_param, name + " needs \"" + std::string(p) + "\"");
  auto listed = [](const std::vector<std::string_view>& names, std::string_view k) {
    return std::find(names.begin(), names.end(), k) != names.end();
  };
  for (auto& kv : r.msg) {
    std::string_view k = kv.key();
    // The envelope; an `id` is checked only where the op is keyed by it.
    if (k == "op" || k == "session" || (k == "id" && !listed(op->params, k))) continue;
    if (!listed(op->params, k) && !listed(op->optional, k))
      return refuse(Error::bad_request, name + " takes no \"" + std::string(k) + "\"");
    if (auto bad = check_kind(k, kv.value())) return refuse(Error::bad_request, *bad);
  }
  if (const json::value* s = r.msg.if_contains("session"); s && (!s->is_string() || !valid_name(s->get_string())))
    return refuse(Error::bad_request, "session must be 1-64 letters, digits, '.', '_' or '-'");
  r.op = op->name;
  return r;
}

void OpSession::handle(std::string_view text) {
  if (ending_) return;
  CheckedRequest checked = check_request(text);
  if (checked.failure) return fail(checked.echo, checked.failure->code, checked.failure->message);
  const Op* op = nullptr;
  for (const Op& o : ops())
    if (o.name == checked.op) op = &o;
  Request r{std::move(checked.msg), std::move(checked.echo)};
  (this->*(op->run))(r);
}

void OpSession::op_describe(Request& r) {
  json::object body = describe_ops();
  body["status"] = json::array{"done"};
  reply(r.echo, std::move(body));
}

void OpSession::op_health(Request& r) {
  auto up = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - gw_.started());
  reply(r.echo, {{"workspace_id", gw_.workspace_id()},
                 {"nonce", gw_.nonce()},
                 {"version", EDITGATE_VERSION},
                 {"uptime_s", up.count()},
                 {"status", json::array{"done"}}});
}

namespace {

// The edit parameters of a request; the session's context when the request
// names none; the request's session (or the connection's) for the commit.
EditParams params_of(const json::object& msg, const std::string& session,
                     const std::optional<std::set<std::string>>& context) {
  EditParams p;
  if (const json::value* v = msg.if_contains("dry_run")) p.dry_run = v->get_bool();
  if (const json::value* v = msg.if_contains("agent")) p.agent = std::string(v->get_string());
  if (const json::value* v = msg.if_contains("fuzz")) p.fuzz_whitespace = v->get_string() == "whitespace";
  if (const json::value* v = msg.if_contains("context")) p.context = strings(*v);
  else if (context) p.context = std::vector<std::string>(context->begin(), context->end());
  const json::value* s = msg.if_contains("session");
  p.session = s ? std::string(s->get_string()) : session;
  return p;
}

std::string stream_key(const json::value& id) { return json::serialize(id); }

}  // namespace

void OpSession::op_edit(Request& r) {
  EditParams params = params_of(r.msg, id_, context_);
  std::string text(r.msg.at("text").get_string());
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [self, params = std::move(params), text = std::move(text)]() mutable {
        Step step;
        Engine& e = self->gw_.engine();
        auto run = EditRun::start(e.workspace(), e.repository(), e.owners(), e.hooks(), std::move(params));
        if (!run) {
          step.failure = run.error();
          return step;
        }
        step.blocks = (*run)->feed(text);
        for (auto& b : (*run)->finish()) step.blocks.push_back(std::move(b));
        if ((*run)->overflowed()) step.failure = Failure{Error::payload_too_large, "the text is over the size limit"};
        step.report = (*run)->commit();
        (*run)->log("WebSocket edit");
        return step;
      },
      [self, echo = std::move(r.echo)](Step step) { self->deliver(echo, std::move(step)); });
}

void OpSession::deliver(const json::object& echo, Step step) {
  for (const editproto::BlockResult& b : step.blocks) reply(echo, block_message(b));
  if (step.report) {
    for (const std::string& f : step.report->files_auto_added) {
      if (!context_) context_.emplace();
      context_->insert(f);
    }
    reply(echo, done_message(*step.report, std::move(step.failure)));
  } else if (step.failure) {
    fail(echo, step.failure->code, step.failure->message);
  }
}

void OpSession::op_edit_begin(Request& r) {
  EditParams params = params_of(r.msg, id_, context_);
  std::string key = stream_key(r.msg.at("id"));
  json::object echo = r.echo;  // kept with the stream, for its last reply
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [self, key, echo = std::move(echo), params = std::move(params)]() mutable {
        Step step;
        if (self->streams_.count(key)) {
          step.failure = Failure{Error::conflict, "a streamed edit with id " + key + " is already open"};
        } else if (self->streams_.size() >= self->gw_.limits().streamed_edits) {
          step.failure = Failure{Error::too_many_streams, "this connection already has " +
                                                               std::to_string(self->streams_.size()) +
                                                               " streamed edits open; end one first"};
        } else {
          Engine& e = self->gw_.engine();
          auto run = EditRun::start(e.workspace(), e.repository(), e.owners(), e.hooks(), std::move(params));
          if (run) self->streams_.emplace(key, Stream{std::move(*run), echo});
          else step.failure = run.error();
        }
        return step;
      },
      [self, echo = std::move(r.echo)](Step step) { self->deliver(echo, std::move(step)); });
}

void OpSession::op_edit_chunk(Request& r) {
  std::string key = stream_key(r.msg.at("id"));
  std::string text(r.msg.at("text").get_string());
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [self, key, text = std::move(text)]() mutable {
        Step step;
        auto it = self->streams_.find(key);
        if (it == self->streams_.end()) {
          step.failure = Failure{Error::not_found, "no streamed edit with id " + key + " is open; send edit-begin first"};
          return step;
        }
        step.blocks = it->second.run->feed(text);
        if (it->second.run->overflowed()) {
          // The parser reads no more of this text: end the run here.
          step.failure = Failure{Error::payload_too_large, "the streamed text is over the size limit; "
                                                           "the blocks before it stay applied"};
          step.report = it->second.run->commit();
          it->second.run->log("WebSocket edit-begin " + key, Error::payload_too_large);
          self->streams_.erase(it);
        }
        return step;
      },
      [self, echo = std::move(r.echo)](Step step) { self->deliver(echo, std::move(step)); });
}

void OpSession::op_edit_end(Request& r) {
  std::string key = stream_key(r.msg.at("id"));
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [self, key]() mutable {
        Step step;
        auto it = self->streams_.find(key);
        if (it == self->streams_.end()) {
          step.failure = Failure{Error::not_found, "no streamed edit with id " + key + " is open"};
          return step;
        }
        step.blocks = it->second.run->finish();
        step.report = it->second.run->commit();
        it->second.run->log("WebSocket edit-begin " + key);
        self->streams_.erase(it);
        return step;
      },
      [self, echo = std::move(r.echo)](Step step) { self->deliver(echo, std::move(step)); });
}

void OpSession::op_context(Request& r) {
  std::string action(r.msg.at("action").get_string());
  const json::value* files = r.msg.if_contains("files");
  if ((action == "add" || action == "remove") && !files)
    return fail(r.echo, Error::missing_param, "context " + action + " needs \"files\"");
  if (action == "add") {
    if (!context_) context_.emplace();
    for (std::string& f : strings(*files)) context_->insert(std::move(f));
  } else if (action == "remove") {
    if (context_)
      for (const std::string& f : strings(*files)) context_->erase(f);
  } else if (action == "clear") {
    context_.reset();
  } else if (action != "list") {
    return fail(r.echo, Error::bad_request, "action must be add, remove, clear or list, not \"" + action + "\"");
  }
  // "declared": whether edits are checked against the list at all.
  reply(r.echo, {{"context", context_ ? to_array(*context_) : json::array()},
                 {"declared", context_.has_value()},
                 {"status", json::array{"done"}}});
}

void OpSession::op_history(Request& r) {
  std::size_t limit = 20;
  if (const json::value* v = r.msg.if_contains("limit")) limit = static_cast<std::size_t>(v->get_int64());
  std::string agent, session;
  if (const json::value* v = r.msg.if_contains("agent")) agent = v->get_string();
  if (const json::value* v = r.msg.if_contains("of_session")) session = v->get_string();
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [self, limit, agent, session]() -> Result<json::array> {
        auto entries = record::find_entries(self->gw_.engine().repository(), limit, agent, session);
        if (!entries) return Failure{Error::io, entries.error().message};
        return record::log_json(*entries);
      },
      [self, echo = std::move(r.echo)](Result<json::array> commits) {
        if (!commits) return self->fail(echo, commits.error().code, commits.error().message);
        self->reply(echo, {{"commits", std::move(*commits)}, {"status", json::array{"done"}}});
      });
}

// ---- the REPL ops: the REPL lives on the engine's thread, and answers there ----

namespace {

std::function<void(json::object)> on_strand(std::shared_ptr<OpSession> self, boost::asio::any_io_executor ex,
                                            json::object echo,
                                            void (*deliver)(OpSession&, const json::object&, json::object)) {
  return [self = std::move(self), ex = std::move(ex), echo = std::move(echo), deliver](json::object body) {
    boost::asio::post(ex, [self, echo, deliver, body = std::move(body)]() mutable { deliver(*self, echo, std::move(body)); });
  };
}

}  // namespace

void OpSession::answer(const json::object& echo, json::object body, bool final) {
  if (final && !body.contains("status")) {
    const bool error = body.contains("error");
    body["status"] = error ? json::array{"done", "error"} : json::array{"done"};
  }
  reply(echo, std::move(body));
}

void OpSession::op_eval(Request& r) {
  repl::EvalRequest req;
  req.page = r.msg.at("page").get_string();
  req.code = r.msg.at("code").get_string();
  if (const json::value* v = r.msg.if_contains("timeout")) req.timeout = std::chrono::milliseconds(v->get_int64());
  if (const json::value* v = r.msg.if_contains("agent")) req.agent = v->get_string();
  if (const json::value* v = r.msg.if_contains("silent")) req.silent = v->get_bool();
  repl::Listener listener;
  listener.out = on_strand(shared_from_this(), ex_, r.echo,
                           [](OpSession& s, const json::object& e, json::object b) { s.answer(e, std::move(b), false); });
  listener.done = on_strand(shared_from_this(), ex_, r.echo,
                            [](OpSession& s, const json::object& e, json::object b) { s.answer(e, std::move(b), true); });
  repl::Repl* repl = gw_.repl();
  if (!repl) return fail(r.echo, Error::not_found, "this gateway runs no pages");
  gw_.engine().post([repl, req = std::move(req), listener = std::move(listener)]() mutable {
    repl->eval(std::move(req), std::move(listener));
  });
}

void OpSession::op_pages(Request& r) {
  repl::Repl* repl = gw_.repl();
  if (!repl) return reply(r.echo, {{"pages", json::array{}}, {"status", json::array{"done"}}});
  auto self = shared_from_this();
  gw_.engine().run(
      ex_, [repl] { return repl->pages(); },
      [self, echo = std::move(r.echo)](json::array pages) {
        self->reply(echo, {{"pages", std::move(pages)}, {"status", json::array{"done"}}});
      });
}

void OpSession::op_interrupt(Request& r) {
  repl::Repl* repl = gw_.repl();
  if (!repl) return fail(r.echo, Error::not_found, "this gateway runs no pages");
  auto done = on_strand(shared_from_this(), ex_, r.echo,
                        [](OpSession& s, const json::object& e, json::object b) { s.answer(e, std::move(b), true); });
  gw_.engine().post([repl, page = std::string(r.msg.at("page").get_string()), done = std::move(done)]() mutable {
    repl->interrupt(page, std::move(done));
  });
}

void OpSession::op_complete(Request& r) {
  repl::Repl* repl = gw_.repl();
  if (!repl) return fail(r.echo, Error::not_found, "this gateway runs no pages");
  auto done = on_strand(shared_from_this(), ex_, r.echo,
                        [](OpSession& s, const json::object& e, json::object b) { s.answer(e, std::move(b), true); });
  gw_.engine().post([repl, page = std::string(r.msg.at("page").get_string()),
                     code = std::string(r.msg.at("code").get_string()), done = std::move(done)]() mutable {
    repl->complete(page, std::move(code), std::move(done));
  });
}

void OpSession::op_stdin(Request& r) {
  repl::Repl* repl = gw_.repl();
  if (!repl) return fail(r.echo, Error::not_found, "this gateway runs no pages");
  auto self = shared_from_this();
  gw_.engine().run(
      ex_,
      [repl, page = std::string(r.msg.at("page").get_string()), text = std::string(r.msg.at("text").get_string())] {
        return repl->input(page, text);
      },
      [self, echo = std::move(r.echo)](repl::Result<void> sent) {
        if (!sent)
          return self->fail(echo, sent.error().code == repl::Error::ambiguous ? Error::ambiguous : Error::not_found,
                            sent.error().message);
        self->reply(echo, {{"status", json::array{"done"}}});
      });
}

void OpSession::op_shutdown(Request& r) {
  if (!constant_time_equal(r.msg.at("cookie").get_string(), gw_.cookie()))
    return fail(r.echo, Error::unauthorized, "wrong cookie; shutdown needs the one in .editgate/cookie");
  reply(r.echo, {{"value", "ok"}, {"status", json::array{"done"}}});
  gw_.request_stop();
}

void OpSession::end(Error why, bool report, std::function<void()> then) {
  if (ending_) {
    if (then) then();
    return;
  }
  ending_ = true;
  auto self = shared_from_this();
  // Streams still open were cut off: what they applied is committed; a
  // block cut in half was never applied.
  gw_.engine().run(
      ex_,
      [self, why] {
        std::vector<std::pair<json::object, record::RunReport>> cut;
        for (auto& [key, stream] : self->streams_) {
          const record::RunReport& r = stream.run->commit();
          stream.run->log("WebSocket edit-begin " + key, why);
          cut.emplace_back(stream.echo, r);
        }
        self->streams_.clear();
        return cut;
      },
      [self, why, report, then = std::move(then)](std::vector<std::pair<json::object, record::RunReport>> cut) {
        if (report) {
          for (auto& [echo, r] : cut) {
            Step step;
            step.report = std::move(r);
            step.failure = Failure{why, "the stream was cut off before edit-end; the blocks it completed stay applied"};
            self->deliver(echo, std::move(step));
          }
        }
        self->ended_ = true;
        if (then) then();
      });
}

}  // namespace editgate
