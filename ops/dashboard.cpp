// The ops behind the dashboard: watch (the live events), origins and
// approve (pages from origins nobody allowed yet), dashboard (a fresh
// sign-in URL). Ordinary ops of the table: an agent may watch and read;
// approving an origin is the person's alone (ConnectionState::person).
#include "services/event_hub.hpp"
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "services/security.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

void op_watch(OpCall call) {
  services::EventHub* hub = call.gw.events();
  if (!hub) return call.out->fail({services::Error::not_found, "this gateway publishes no events"});
  // Events go on while the connection lives: a watch has no final reply.
  std::weak_ptr<void> alive = call.conn;
  if (auto w = hub->watch(call.out, std::move(alive)); !w) call.out->fail(w.error());
}

void op_origins(OpCall call) { call.out->done(call.gw.approvals().snapshot()); }

// The person's alone: dispatch refuses it to an agent, and to a dashboard
// signed in through the API (Role::person). An origin that asked, or one
// the person types before its page asks (so a flood never stands between
// the person and their own origin).
void op_approve(OpCall call) {
  const std::string given(call.params.at("origin").get_string());
  auto origin = services::typed_origin(given);
  if (!origin)
    return call.out->fail({services::Error::bad_request,
                           "origin must be http(s)://host[:port], as a browser sends it: no path, no slash at the end"});
  const bool allow = call.params.at("allow").get_bool();
  call.gw.approvals().decide(*origin, allow);
  call.out->done({{"origin", *origin}, {"allowed", allow}});
}

void op_dashboard(OpCall call) {
  // Through the API: any agent with the bearer cookie gets here, so the
  // sign-in it makes looks and never decides.
  call.out->done({{"url", call.gw.url() + "?token=" + call.gw.dashboard().mint_token(services::Grade::viewer)}});
}

}  // namespace ops
