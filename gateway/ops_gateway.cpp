// The ops about the gateway itself: describe, health, history, shutdown.
#include "gateway/gateway.hpp"
#include "record/edit_log.hpp"
#include "gateway/op_handlers.hpp"

#include <boost/json.hpp>

#ifndef EDITGATE_VERSION
#define EDITGATE_VERSION "0.0.0"
#endif

namespace gateway {

namespace json = boost::json;

void op_describe(OpCall call) { call.out->done(describe_ops()); }

void op_health(OpCall call) {
  auto up = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - call.gw.started());
  call.out->done({{"workspace_id", call.gw.workspace_id()},
                  {"nonce", call.gw.nonce()},
                  {"version", EDITGATE_VERSION},
                  {"uptime_s", up.count()}});
}

void op_history(OpCall call) {
  std::size_t limit = 20;
  if (const json::value* v = call.params.if_contains("limit")) limit = static_cast<std::size_t>(v->get_int64());
  std::string agent, session;
  if (const json::value* v = call.params.if_contains("agent")) agent = v->get_string();
  if (const json::value* v = call.params.if_contains("of_session")) session = v->get_string();
  Gateway& gw = call.gw;
  gw.worker().run(
      call.out->executor(),
      [&gw, limit, agent, session]() -> Result<json::array> {
        auto entries = record::find_entries(gw.worker().repository(), limit, agent, session);
        if (!entries) return Failure{Error::io, entries.error().message};
        return record::log_json(*entries);
      },
      [out = call.out](Result<json::array> commits) {
        if (!commits) return out->fail(commits.error());
        out->done({{"commits", std::move(*commits)}});
      });
}

void op_shutdown(OpCall call) {
  if (!constant_time_equal(call.params.at("cookie").get_string(), call.gw.cookie()))
    return call.out->fail({Error::unauthorized, "wrong cookie; shutdown needs the one in .editgate/cookie"});
  call.out->done({{"value", "ok"}});
  call.gw.request_stop();
}

}  // namespace gateway
