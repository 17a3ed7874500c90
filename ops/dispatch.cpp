#include "ops/dispatch.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <utility>

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

// Another door's replies, counted as a request running in a session until
// the final one: a session with a request running is not idle. A request
// dropped without a final reply (its connection gone) ends there too.
class InSession final : public services::Replies {
 public:
  InSession(services::Gateway& gw, std::string session, std::shared_ptr<services::Replies> out)
      : gw_(gw), session_(std::move(session)), out_(std::move(out)) {
    gw_.sessions().begin(session_);
  }
  ~InSession() override {
    if (!ended_)
      boost::asio::post(out_->executor(), [&gw = gw_, session = std::move(session_)] { gw.sessions().end(session); });
  }
  boost::asio::any_io_executor executor() const override { return out_->executor(); }
  void part(json::object body) override { out_->part(std::move(body)); }
  void done(json::object body) override {
    end();
    out_->done(std::move(body));
  }
  void fail(services::Failure failure, json::object body) override {
    end();
    out_->fail(std::move(failure), std::move(body));
  }

 private:
  void end() {
    if (!std::exchange(ended_, true)) gw_.sessions().end(session_);
  }
  services::Gateway& gw_;
  std::string session_;
  std::shared_ptr<services::Replies> out_;
  bool ended_ = false;
};

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
    // Any connection may name any session (docs/decisions/ops.md): its id
    // is what addresses it, as the cookie is what lets the client in.
    auto known = gw.sessions().touch(session, conn.get(), agent ? std::string_view(agent->get_string()) : "");
    if (!known && env.session && takes(op, "page"))
      return out->fail({services::Error::not_found, "no session " + session + "; clone (MCP: realm_open) makes one"});
    if (known) out = std::make_shared<InSession>(gw, session, std::move(out));
  }
  op.handler(OpCall{gw, op, std::move(params), std::move(session), std::move(env.door), std::move(conn), std::move(out),
                    std::move(env.request_id), std::move(env.text)});
}

}  // namespace ops
