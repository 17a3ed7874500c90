// The ops of the live pages: eval, pages, interrupt, complete, stdin. The
// REPL lives on the worker thread and answers there; its answers are
// carried to the door's executor, and its codes become the gateway's.
#include "gateway/gateway.hpp"
#include "gateway/op_handlers.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <array>

namespace gateway {

namespace json = boost::json;

namespace {

Error from_repl(repl::Error e) {
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
    if (repl::to_string(e) == reason) return from_repl(e);
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

}  // namespace

void op_eval(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  repl::EvalRequest req;
  // A client that names no page means its session's page (session_page).
  const json::value* page = call.params.if_contains("page");
  req.page = page ? std::string(page->get_string()) : session_page(call);
  req.code = call.params.at("code").get_string();
  if (const json::value* v = call.params.if_contains("timeout")) req.timeout = std::chrono::milliseconds(v->get_int64());
  if (const json::value* v = call.params.if_contains("agent")) req.agent = v->get_string();
  if (const json::value* v = call.params.if_contains("silent")) req.silent = v->get_bool();
  repl::Listener listener{posted(call.out, false), posted(call.out, true)};
  call.gw.worker().post([repl, req = std::move(req), listener = std::move(listener)]() mutable {
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
  // Nothing to stop says so in its status too, as nREPL's session-idle.
  auto done = [out = call.out](json::object body) {
    boost::asio::post(out->executor(), [out, body = std::move(body)]() mutable {
      const bool idle = body.contains("result") && body.at("result") == "idle" && !body.contains("error");
      if (!idle) return answer(*out, std::move(body));
      body["status"] = json::array{"session-idle"};
      out->done(std::move(body));
    });
  };
  call.gw.worker().post([repl, page = std::string(call.params.at("page").get_string()),
                         done = std::move(done)]() mutable { repl->interrupt(page, std::move(done)); });
}

void op_complete(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  call.gw.worker().post([repl, page = std::string(call.params.at("page").get_string()),
                         code = std::string(call.params.at("code").get_string()),
                         done = posted(call.out, true)]() mutable { repl->complete(page, std::move(code), std::move(done)); });
}

void op_stdin(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  call.gw.worker().run(
      call.out->executor(),
      [repl, page = std::string(call.params.at("page").get_string()),
       text = std::string(call.params.at("text").get_string())] { return repl->input(page, text); },
      [out = call.out](repl::Result<void> sent) {
        if (!sent) return out->fail({from_repl(sent.error().code), sent.error().message});
        out->done({});
      });
}

}  // namespace gateway
