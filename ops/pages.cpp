// The ops of the live pages: eval, pages, interrupt, complete, stdin. The
// REPL lives on the worker thread and answers there; its answers are
// carried to the door's executor, and its codes become the gateway's.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace gateway {

namespace json = boost::json;

namespace {

// The gateway's code for a REPL code.
Error code_of(repl::Error e) {
  switch (e) {
    case repl::Error::not_found: return Error::not_found;
    case repl::Error::ambiguous: return Error::ambiguous;
    case repl::Error::in_use: return Error::in_use;
    case repl::Error::bad_request: return Error::bad_request;
    case repl::Error::timeout: return Error::page_timeout;
    case repl::Error::context_destroyed: return Error::context_destroyed;
    case repl::Error::interrupted: return Error::interrupted;
    case repl::Error::log_conflict: return Error::log_conflict;
    case repl::Error::request_edited: return Error::request_edited;
    case repl::Error::queue_full: return Error::queue_full;
    case repl::Error::rate_limited: return Error::rate_limited;
    case repl::Error::too_many_pages: return Error::too_many_pages;
    case repl::Error::shutting_down: return Error::shutting_down;
    case repl::Error::io: return Error::io;
    case repl::Error::commit_queue_full: return Error::commit_failed;  // written, not committed
  }
  return Error::internal;
}

// The REPL's final replies name their code in "reason", by repl::to_string
// (a page's exception: "page_error"). The code is read back from that name
// through the REPL's own table, never from the message.
Error code_named(std::string_view reason) {
  using E = repl::Error;
  static constexpr std::array all{E::not_found,   E::ambiguous,      E::in_use,     E::bad_request,
                                  E::timeout,     E::context_destroyed, E::interrupted, E::log_conflict,
                                  E::request_edited, E::queue_full,  E::rate_limited, E::too_many_pages,
                                  E::shutting_down, E::io,       E::commit_queue_full};
  if (reason == to_string(Error::page_error)) return Error::page_error;
  for (E e : all)
    if (repl::to_string(e) == reason) return code_of(e);
  return Error::internal;
}

// A REPL answer as an op reply. Its "error" is "<reason>: <message>" (a
// page's exception: the exception's own "Name: message"), its "status" the
// WebSocket's: the door renders both again from the code.
void answer(Replies& out, json::object body) {
  body.erase("status");
  // An eval an agent's interrupt ended says so in its status too.
  if (const json::value* i = body.if_contains("interrupted"); i && i->is_bool() && i->get_bool())
    body["status"] = json::array{"interrupted"};
  const json::value* error = body.if_contains("error");
  if (!error) return out.done(std::move(body));
  const json::value* reason = body.if_contains("reason");
  const std::string code_name = reason && reason->is_string() ? std::string(reason->get_string()) : "";
  const Error code = code_named(code_name);
  std::string message = error->is_string() ? std::string(error->get_string()) : json::serialize(*error);
  const std::string prefix = code_name + ": ";
  if (code != Error::page_error && message.starts_with(prefix)) message.erase(0, prefix.size());
  body.erase("error");
  body.erase("reason");
  out.fail({code, std::move(message)}, std::move(body));
}

// A REPL callback (worker thread) that hands its message to the door's executor.
std::function<void(json::object)> posted(std::shared_ptr<Replies> out, bool final) {
  return [out = std::move(out), final](json::object body) {
    auto ex = out->executor();
    boost::asio::post(ex, [out, final, body = std::move(body)]() mutable {
      if (final) answer(*out, std::move(body));
      else out->part(std::move(body));
    });
  };
}

const Failure no_pages{Error::not_found, "this gateway runs no pages"};

// A place in UTF-8 text, in bytes and in UTF-16 units.
struct Position {
  std::size_t bytes = 0;
  std::uint64_t units = 0;
};

// The place `units` UTF-16 units into `text` (valid UTF-8, as JSON gives
// it), or its end when it is shorter; a place inside a surrogate pair is
// the one before its character.
Position utf16_position(std::string_view text, std::uint64_t units) {
  Position p;
  while (p.bytes < text.size()) {
    const auto lead = static_cast<unsigned char>(text[p.bytes]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    const std::uint64_t width = length == 4 ? 2 : 1;
    if (units - p.units < width) break;
    p.bytes = std::min(text.size(), p.bytes + length);
    p.units += width;
  }
  return p;
}

}  // namespace

Failure from_repl(repl::Failure f) { return {code_of(f.code), std::move(f.message)}; }

std::function<void(json::object)> final_from_repl(std::shared_ptr<Replies> out) { return posted(std::move(out), true); }

void op_eval(OpCall call) {
  repl::EvalRequest req;
  req.page = page_of(call);
  req.code = call.params.at("code").get_string();
  if (const json::value* v = call.params.if_contains("timeout")) req.timeout = std::chrono::milliseconds(v->get_int64());
  if (const json::value* v = call.params.if_contains("agent")) req.agent = v->get_string();
  if (const json::value* v = call.params.if_contains("silent")) req.silent = v->get_bool();
  run_eval(call.gw, call.out, std::move(req), call.request_id, call.conn);
}

std::string page_of(const OpCall& call) {
  // A client that names no page means its session's page (session_page):
  // the one `use` or `clone` bound it to, else the default page.
  const json::value* page = call.params.if_contains("page");
  return page ? std::string(page->get_string()) : session_page(call);
}

void run_eval(Gateway& gw, std::shared_ptr<Replies> out, repl::EvalRequest req, std::string key,
              std::weak_ptr<ConnectionState> conn) {
  repl::Repl* repl = gw.repl();
  if (!repl) return out->fail(no_pages);
  repl::Listener listener{posted(out, false), posted(out, true)};
  gw.worker().post([repl, req = std::move(req), listener = std::move(listener), key = std::move(key),
                    conn = std::move(conn)]() mutable {
    // An eval under an id is found by that id while it runs (stdin,
    // interrupt-id): its job is numbered here and forgotten when it ends.
    if (auto c = conn.lock(); c && !key.empty()) {
      req.job = repl->next_sequence();
      c->evals[key] = req.job;
      listener.done = [done = std::move(listener.done), conn, key, job = req.job](json::object body) {
        if (auto c = conn.lock())
          if (auto it = c->evals.find(key); it != c->evals.end() && it->second == job) c->evals.erase(it);
        done(std::move(body));
      };
    }
    repl->eval(std::move(req), std::move(listener));
  });
}

void op_pages(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->done({{"pages", json::array{}}});
  call.gw.worker().run(call.out->executor(), [repl] { return repl->pages(); },
                       [out = call.out](json::array pages) { out->done({{"pages", std::move(pages)}}); });
}

void op_interrupt(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  // Nothing to stop says so in its status too, as nREPL's session-idle; an
  // interrupt-id that names no running eval is nREPL's interrupt-id-mismatch.
  auto done = [out = call.out](json::object body) {
    boost::asio::post(out->executor(), [out, body = std::move(body)]() mutable {
      const json::value* result = body.if_contains("result");
      if (result && *result == "interrupt-id-mismatch") {
        std::string message(body.at("message").as_string());
        body.erase("message");
        body["status"] = json::array{"interrupt-id-mismatch"};
        return out->fail({Error::not_found, std::move(message)}, std::move(body));
      }
      const bool idle = result && *result == "idle" && !body.contains("error");
      if (!idle) return answer(*out, std::move(body));
      body["status"] = json::array{"session-idle"};
      out->done(std::move(body));
    });
  };
  // The default page, as eval's; an interrupt-id names the eval wherever it
  // runs, by the job number this connection's evals are known by (run_eval).
  const json::value* id = call.params.if_contains("interrupt-id");
  std::optional<std::string> key;
  if (id) key = json::serialize(*id);
  call.gw.worker().post([repl, page = page_of(call), key = std::move(key), conn = std::weak_ptr(call.conn),
                         done = std::move(done)]() mutable {
    if (!key) return repl->interrupt(page, std::move(done));
    std::uint64_t job = 0;
    if (auto c = conn.lock())
      if (auto it = c->evals.find(*key); it != c->evals.end()) job = it->second;
    repl->interrupt_job(page, job, std::move(done));
  });
}

void op_complete(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  std::string code(call.params.at("code").get_string());
  // The page completes the text before the cursor; positions are UTF-16
  // units, as the page's strings count them.
  const Position end = utf16_position(code, std::numeric_limits<std::uint64_t>::max());
  Position cursor = end;
  if (const json::value* c = call.params.if_contains("cursor_pos")) {
    const auto units = static_cast<std::uint64_t>(c->get_int64());
    if (units > end.units)
      return call.out->fail({Error::bad_request, "cursor_pos " + std::to_string(units) + " is past the end of code (" +
                                                     std::to_string(end.units) + " UTF-16 units)"});
    cursor = utf16_position(code, units);
    code.resize(cursor.bytes);
  }
  // The range the completions replace: from where the page says the word
  // starts to the cursor.
  auto done = [out = call.out, at = cursor.units](json::object body) {
    boost::asio::post(out->executor(), [out, at, body = std::move(body)]() mutable {
      if (!body.contains("error")) {
        const json::value* start = body.if_contains("start");
        body["cursor_start"] = start && start->is_uint64() && start->get_uint64() <= at ? start->get_uint64() : at;
        body["cursor_end"] = at;
      }
      body.erase("start");
      answer(*out, std::move(body));
    });
  };
  call.gw.worker().post([repl, page = page_of(call), code = std::move(code), done = std::move(done)]() mutable {
    repl->complete(page, std::move(code), std::move(done));
  });
}

void op_stdin(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  repl::Input in;
  const std::string value(call.params.at("value").get_string());
  in.eof = value == "eof";  // the protocol's end of input
  if (!in.eof) in.text = value;
  const json::value* page = call.params.if_contains("page");
  call.gw.worker().run(
      call.out->executor(),
      [repl, in = std::move(in), conn = call.conn, key = call.request_id,
       page = page ? std::optional<std::string>(page->get_string()) : std::nullopt]() -> repl::Result<void> {
        // The eval this id names on this connection, else the page's.
        if (auto it = conn->evals.find(key); !key.empty() && it != conn->evals.end()) return repl->input(it->second, in);
        if (page) return repl->input(*page, in);
        return repl::Failure{repl::Error::not_found,
                             "no eval runs under this id; send stdin with the id of the eval that asked for input"};
      },
      [out = call.out](repl::Result<void> sent) {
        if (!sent) return out->fail(from_repl(sent.error()));
        out->done({});
      });
}

}  // namespace gateway
