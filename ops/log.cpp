// The log op: a page's chat log for people (the dashboard), its tail first,
// paged back by byte offset. Read on the worker thread, which owns the
// pages and writes their logs, so a read never sees half a write.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/log_render.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

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
      [out = call.out](repl::Result<json::object> r) {
        if (!r) return out->fail(from_repl(r.error()));
        out->done(std::move(*r));
      });
}

}  // namespace ops
