// The ops about the gateway itself: describe, health, history, shutdown.
#include "services/gateway.hpp"
#include "record/edit_log.hpp"
#include "repl/repl.hpp"
#include "ops/handlers.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

// Jupyter's language_info for JavaScript, at `version`.
json::object language_info(std::string_view version) {
  return {{"name", "javascript"},         {"version", version},      {"mimetype", "text/javascript"},
          {"file_extension", ".js"},      {"pygments_lexer", "javascript"}, {"codemirror_mode", "javascript"}};
}

// The table's description, with what the pages run: the built-in Node
// page's Node version while it is connected (its hello's user agent is
// node/v<version>), and a language_info per page kind. A browser tab's
// engine is its own; ES2017 (async functions) is what the adapter needs.
json::object describe_with(const json::array& pages) {
  json::object body = describe_ops();
  json::object kinds{{"browser", language_info("ES2017")}};
  for (const json::value& v : pages) {
    const json::object& p = v.as_object();
    const std::string_view agent = p.at("user_agent").as_string();
    if (p.at("kind") != "node" || p.at("state") == "disconnected" || !agent.starts_with("node/v")) continue;
    const std::string version(agent.substr(6));
    body["versions"].as_object()["node"] = version;
    kinds["node"] = language_info(version);
    break;
  }
  body["language_info"] = std::move(kinds);
  return body;
}

// A history page with each commit cut to what a reader scans (history's
// `brief`): about a sixth of the bytes of the whole entry.
json::object briefly(json::object page) {
  for (json::value& v : page.at("commits").as_array()) {
    json::object& c = v.as_object();
    json::object cut;
    for (std::string_view key : {"commit", "kind", "agent", "time", "summary"}) cut[key] = c.at(key);
    c = std::move(cut);
  }
  return page;
}

}  // namespace

void op_describe(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->done(describe_with({}));
  call.gw.worker().run(call.out->executor(), [repl] { return repl->pages(); },
                       [out = call.out](json::array pages) { out->done(describe_with(pages)); });
}

void op_health(OpCall call) {
  auto up = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - call.gw.started());
  call.out->done({{"workspace_id", call.gw.workspace_id()},
                  {"nonce", call.gw.nonce()},
                  {"version", EDITGATE_VERSION},
                  {"uptime_s", up.count()}});
}

void op_history(OpCall call) {
  record::LogQuery q;
  if (const json::value* v = call.params.if_contains("limit")) q.limit = static_cast<std::size_t>(v->get_int64());
  if (const json::value* v = call.params.if_contains("agent")) q.agent = v->get_string();
  if (const json::value* v = call.params.if_contains("of_session")) q.session = v->get_string();
  if (const json::value* v = call.params.if_contains("kind")) q.kind = v->get_string();
  if (const json::value* v = call.params.if_contains("repl")) q.repl = v->get_bool();
  if (const json::value* v = call.params.if_contains("before")) q.before = v->get_string();
  const json::value* brief = call.params.if_contains("brief");
  const bool cut = brief && brief->get_bool();
  services::Gateway& gw = call.gw;
  gw.worker().run(
      call.out->executor(),
      [&gw, q, cut]() -> services::Result<json::object> {
        auto page = record::find_entries(gw.worker().repository(), q);
        if (!page && page.error().code == editgit::Error::not_found)
          return services::Failure{services::Error::not_found, page.error().message};
        if (!page) return services::Failure{services::Error::io, page.error().message};
        return cut ? briefly(record::log_page_json(*page)) : record::log_page_json(*page);
      },
      [out = call.out](services::Result<json::object> page) {
        if (!page) return out->fail(page.error());
        out->done(std::move(*page));
      });
}

void op_shutdown(OpCall call) {
  if (!services::constant_time_equal(call.params.at("cookie").get_string(), call.gw.cookie()))
    return call.out->fail({services::Error::unauthorized, "wrong cookie; shutdown needs the one in the gateway's cookie file (`editgate where` names it)"});
  call.out->done({{"value", "ok"}});
  call.gw.request_stop();
}

}  // namespace ops
