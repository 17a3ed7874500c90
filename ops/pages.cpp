// The ops of the live pages: eval, pages, interrupt, complete, stdin. The
// REPL lives on the worker thread and answers there; its answers are
// carried to the door's executor, and its codes become the gateway's.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <limits>
#include <optional>

namespace ops {

namespace json = boost::json;

namespace {

// The gateway's code for a REPL code.
services::Error code_of(repl::Error e) {
  switch (e) {
    case repl::Error::not_found: return services::Error::not_found;
    case repl::Error::ambiguous: return services::Error::ambiguous;
    case repl::Error::in_use: return services::Error::in_use;
    case repl::Error::bad_request: return services::Error::bad_request;
    case repl::Error::timeout: return services::Error::page_timeout;
    case repl::Error::context_destroyed: return services::Error::context_destroyed;
    case repl::Error::interrupted: return services::Error::interrupted;
    case repl::Error::log_conflict: return services::Error::log_conflict;
    case repl::Error::request_edited: return services::Error::request_edited;
    case repl::Error::queue_full: return services::Error::queue_full;
    case repl::Error::rate_limited: return services::Error::rate_limited;
    case repl::Error::too_many_pages: return services::Error::too_many_pages;
    case repl::Error::shutting_down: return services::Error::shutting_down;
    case repl::Error::io: return services::Error::io;
    case repl::Error::commit_queue_full: return services::Error::commit_failed;  // written, not committed
    case repl::Error::page_error: return services::Error::page_error;
    case repl::Error::dialog_open: return services::Error::dialog_open;
    case repl::Error::too_many_screenshots: return services::Error::too_many_screenshots;
  }
  return services::Error::internal;
}

// A REPL answer as an op reply; the door writes its error, reason and
// status from the code.
void answer(services::Replies& out, repl::Answer a) {
  // An eval an agent's interrupt ended says so in its status too.
  if (const json::value* i = a.body.if_contains("interrupted"); i && i->is_bool() && i->get_bool())
    a.body["status"] = json::array{"interrupted"};
  if (!a.failure) return out.done(std::move(a.body));
  out.fail(from_repl(std::move(*a.failure)), std::move(a.body));
}

const services::Failure no_pages{services::Error::not_found, "this gateway runs no pages"};

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

services::Failure from_repl(repl::Failure f) { return {code_of(f.code), std::move(f.message)}; }

std::function<void(repl::Answer)> final_from_repl(std::shared_ptr<services::Replies> out) {
  return [out = std::move(out)](repl::Answer a) {
    auto ex = out->executor();
    boost::asio::post(ex, [out, a = std::move(a)]() mutable { answer(*out, std::move(a)); });
  };
}

void op_eval(OpCall call) {
  repl::EvalRequest req;
  req.page = page_of(call);
  req.code = call.params.at("code").get_string();
  if (const json::value* v = call.params.if_contains("timeout")) req.timeout = std::chrono::milliseconds(v->get_int64());
  if (const json::value* v = call.params.if_contains("agent")) req.agent = v->get_string();
  if (const json::value* v = call.params.if_contains("silent")) req.silent = v->get_bool();
  if (const json::value* v = call.params.if_contains("dialog")) req.accept_dialogs = v->get_string() == "accept";
  if (const json::value* v = call.params.if_contains("prompt_text")) req.prompt_text = std::string(v->get_string());
  run_eval(call.gw, call.out, std::move(req), call.request_id, call.conn);
}

std::string page_of(const OpCall& call) {
  // A client that names no page means its session's page (session_page):
  // the one `use` or `clone` bound it to, else the default page.
  const json::value* page = call.params.if_contains("page");
  return page ? std::string(page->get_string()) : session_page(call);
}

void run_eval(services::Gateway& gw, std::shared_ptr<services::Replies> out, repl::EvalRequest req, std::string key,
              std::weak_ptr<ConnectionState> conn) {
  repl::Repl* repl = gw.repl();
  if (!repl) return out->fail(no_pages);
  // Its out messages (console output, need-input) pass as the page wrote them.
  auto parts = [out](json::object body) {
    auto ex = out->executor();
    boost::asio::post(ex, [out, body = std::move(body)]() mutable { out->part(std::move(body)); });
  };
  repl::Listener listener{std::move(parts), final_from_repl(out)};
  gw.worker().post([repl, req = std::move(req), listener = std::move(listener), key = std::move(key),
                    conn = std::move(conn)]() mutable {
    // An eval under an id is found by that id while it runs (stdin,
    // interrupt-id): its job is numbered here and forgotten when it ends.
    if (auto c = conn.lock(); c && !key.empty()) {
      req.job = repl->next_sequence();
      c->evals[key] = req.job;
      listener.done = [done = std::move(listener.done), conn, key, job = req.job](repl::Answer a) {
        if (auto c = conn.lock())
          if (auto it = c->evals.find(key); it != c->evals.end() && it->second == job) c->evals.erase(it);
        done(std::move(a));
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
  auto done = [final = final_from_repl(call.out)](repl::Answer a) {
    const json::value* result = a.body.if_contains("result");
    if (result && *result == "interrupt-id-mismatch") a.body["status"] = json::array{"interrupt-id-mismatch"};
    if (result && *result == "idle") a.body["status"] = json::array{"session-idle"};
    final(std::move(a));
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
      return call.out->fail({services::Error::bad_request, "cursor_pos " + std::to_string(units) + " is past the end of code (" +
                                                     std::to_string(end.units) + " UTF-16 units)"});
    cursor = utf16_position(code, units);
    code.resize(cursor.bytes);
  }
  // The range the completions replace: from where the page says the word
  // starts to the cursor.
  auto done = [final = final_from_repl(call.out), at = cursor.units](repl::Answer a) {
    if (!a.failure) {
      const json::value* start = a.body.if_contains("start");
      a.body["cursor_start"] = start && start->is_uint64() && start->get_uint64() <= at ? start->get_uint64() : at;
      a.body["cursor_end"] = at;
    }
    a.body.erase("start");
    final(std::move(a));
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

}  // namespace ops
