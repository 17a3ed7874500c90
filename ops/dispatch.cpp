#include "ops/dispatch.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace ops {

namespace json = boost::json;

namespace {

bool addresses_page(const OpSpec& op) {
  return std::any_of(op.params.begin(), op.params.end(), [](const Param& p) { return p.name == "page"; });
}

}  // namespace

void dispatch(services::Gateway& gw, const OpSpec& op, Envelope env, json::object params, std::shared_ptr<ConnectionState> conn,
              std::shared_ptr<services::Replies> out) {
  // The op's own bound, inside the door's: what one call of it may carry.
  if (const std::size_t bytes = json::serialize(params).size(); bytes > op.size_limit)
    return out->fail({services::Error::payload_too_large, std::string(op.name) + "'s parameters are " + std::to_string(bytes) +
                                                              " bytes as JSON, over the " + std::to_string(op.size_limit) +
                                                              " it takes"});
  auto unknown = check_params(op, params);
  if (!unknown) return out->fail(unknown.error());
  out = naming_unknown(std::move(out), *unknown);
  // The person's decisions (approving an origin) are never an agent's:
  // page text steers agents, and must not widen who runs code through them.
  if (op.role == Role::person && !conn->person)
    return out->fail({services::Error::forbidden_origin, std::string(op.name) +
                                                   " is the person's, on the dashboard (the URL `editgate serve` "
                                                   "printed, or `editgate dashboard`); never an agent's"});
  std::string session = env.session ? *env.session : conn->id;
  if (!session.empty()) {
    const json::value* agent = params.if_contains("agent");
    auto held = gw.sessions().touch(session, conn.get(), agent ? std::string_view(agent->get_string()) : "");
    if (!held) return out->fail(held.error());
    if (!*held && env.session && addresses_page(op))
      return out->fail({services::Error::not_found, "no session " + session + "; clone (MCP: realm_open) makes one"});
  }
  op.handler(OpCall{gw, op, std::move(params), std::move(session), env.door, std::move(conn), std::move(out),
                    std::move(env.request_id)});
}

}  // namespace ops
