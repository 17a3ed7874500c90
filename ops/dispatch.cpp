#include "ops/dispatch.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace ops {

namespace json = boost::json;

namespace {

bool takes(const OpSpec& op, std::string_view name) {
  return std::any_of(op.params.begin(), op.params.end(), [&](const Param& p) { return p.name == name; });
}

// The names in `params` that `op` does not take, in order.
std::vector<std::string> unknown_names(const OpSpec& op, const json::object& params) {
  std::vector<std::string> unknown;
  for (const auto& kv : params)
    if (!takes(op, kv.key())) unknown.emplace_back(kv.key());
  return unknown;
}

// An op that takes `dry_run` refuses a request with names it does not know:
// `dryrun` ignored would write what was meant as a check.
services::Failure refused_unknown(const OpSpec& op, const std::vector<std::string>& unknown) {
  constexpr std::size_t most = 32;
  std::string names;
  for (std::size_t i = 0; i < unknown.size() && i < most; ++i) names += (i ? ", '" : "'") + unknown[i].substr(0, 256) + "'";
  if (unknown.size() > most) names += " and " + std::to_string(unknown.size() - most) + " more";
  std::string known;
  for (const Param& p : op.params) known += (known.empty() ? "" : ", ") + std::string(p.name);
  return {services::Error::bad_request, std::string(unknown.size() == 1 ? "unknown parameter " : "unknown parameters ") +
                                            names + "; " + std::string(op.name) + " takes " + known +
                                            ", and nothing was applied"};
}

}  // namespace

void dispatch(services::Gateway& gw, const OpSpec& op, Envelope env, json::object params, std::shared_ptr<ConnectionState> conn,
              std::shared_ptr<services::Replies> out) {
  // The op's own bound, inside the door's: what one call of it may carry.
  if (const std::size_t bytes = json::serialize(params).size(); bytes > op.size_limit)
    return out->fail({services::Error::payload_too_large, std::string(op.name) + "'s parameters are " + std::to_string(bytes) +
                                                              " bytes as JSON, over the " + std::to_string(op.size_limit) +
                                                              " it takes"});
  const std::string_view streamed = op.http ? op.http->body : std::string_view();
  if (env.text) {
    if (streamed.empty()) return out->fail({services::Error::bad_request, std::string(op.name) + " takes no streamed text"});
    if (params.contains(streamed))
      return out->fail({services::Error::bad_request, std::string(streamed) + " is the request's body, not a parameter"});
    params[streamed] = "";  // stands for the text to come in the table's check
  }
  // Every unknown name at once, before any value is judged, so a client
  // fixes its request in one go.
  if (auto unknown = unknown_names(op, params); !unknown.empty() && takes(op, "dry_run")) {
    json::object body;
    name_unknown(body, unknown);
    return out->fail(refused_unknown(op, unknown), std::move(body));
  }
  auto unknown = check_params(op, params);
  if (!unknown) return out->fail(unknown.error());
  out = naming_unknown(std::move(out), *unknown);
  if (env.text) params.erase(streamed);
  // The person's decisions (approving an origin) are never an agent's:
  // page text steers agents, and must not widen who runs code through them.
  // Nor a dashboard's signed in by a URL minted through the API: any agent
  // with the bearer cookie can mint one.
  if (op.role == Role::person && !conn->person)
    return out->fail({services::Error::person_only,
                      std::string(op.name) +
                          (conn->dashboard ? " is the person's: this browser signed in with a URL minted through the API "
                                             "(`editgate dashboard`), which can look but not decide"
                                           : " is the person's, never an agent's") +
                          "; decide on the dashboard signed in with the URL `editgate serve` printed in its terminal, "
                          "or start the gateway with --allow-origin"});
  std::string session = env.session ? *env.session : conn->id;
  if (!session.empty()) {
    const json::value* agent = params.if_contains("agent");
    auto held = gw.sessions().touch(session, conn.get(), agent ? std::string_view(agent->get_string()) : "");
    if (!held) return out->fail(held.error());
    if (!*held && env.session && takes(op, "page"))
      return out->fail({services::Error::not_found, "no session " + session + "; clone (MCP: realm_open) makes one"});
  }
  op.handler(OpCall{gw, op, std::move(params), std::move(session), std::move(env.door), std::move(conn), std::move(out),
                    std::move(env.request_id), std::move(env.text)});
}

}  // namespace ops
