// The log op: a page's chat log for people (the dashboard), its tail first,
// paged back by byte offset. Read on the worker thread, which owns the
// pages and writes their logs, so a read never sees half a write; rendered
// on the gateway's render thread, never the worker's, within a time budget
// (repl/log_rendering.hpp): the entries not rendered by then come as plain
// text, so a log made to be slow to render holds neither the edits and
// evals nor the reader.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/log_rendering.hpp"
#include "repl/repl.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <memory>

namespace ops {

namespace json = boost::json;
namespace net = boost::asio;

namespace {

// Renders `tail` on the render thread and answers `out` with it at the end
// of the rendering or of the budget, whichever comes first.
void render_and_answer(services::Gateway& gw, std::shared_ptr<services::Replies> out, repl::LogTail tail) {
  auto job = std::make_shared<repl::LogRendering>(std::move(tail.read.entries));
  auto shared_tail = std::make_shared<repl::LogTail>(std::move(tail));
  auto timer = std::make_shared<net::steady_timer>(out->executor(), gw.limits().render_budget);
  auto answered = std::make_shared<std::atomic<bool>>(false);
  auto answer = [out, job, shared_tail, timer, answered] {
    if (answered->exchange(true)) return;
    timer->cancel();
    out->done(repl::log_json(*shared_tail, job->entries(), job->take()));
  };
  const bool queued = gw.renderer().submit(
      [job, answer, ex = out->executor(), guard = net::make_work_guard(out->executor())](
          const std::atomic<bool>& stopping) mutable {
        job->run(stopping);
        net::post(ex, [answer, guard = std::move(guard)] { answer(); });
      });
  if (!queued)
    return out->fail({services::Error::too_many_requests,
                      std::to_string(gw.limits().render_queue) + " log reads wait to be rendered; read again later"});
  timer->async_wait([answer](boost::system::error_code ec) {
    if (!ec) answer();
  });
}

}  // namespace

void op_log(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  std::optional<std::uint64_t> before;
  if (const json::value* v = call.params.if_contains("before")) before = static_cast<std::uint64_t>(v->get_int64());
  std::size_t window = repl::LogLimits{}.window_bytes;
  if (const json::value* v = call.params.if_contains("limit_bytes")) window = static_cast<std::size_t>(v->get_int64());
  call.gw.worker().run(
      call.out->executor(),
      [repl, page = page_of(call), before, window] { return repl->log_tail(page, before, window); },
      [out = call.out, &gw = call.gw](repl::Result<repl::LogTail> r) {
        if (!r) return out->fail(from_repl(r.error()));
        render_and_answer(gw, out, std::move(*r));
      });
}

}  // namespace ops
