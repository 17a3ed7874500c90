// The op table behind every door: each op declared there is reachable on the
// WebSocket and on its HTTP route, both refuse mistyped parameters with the
// same code and ignore unknown ones, naming them, and an error code has one
// HTTP status on every route.
#include "client.hpp"
#include "ops/table.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace services;
using namespace ops;
namespace json = boost::json;

namespace {

json::object obj(const std::string& s) { return json::parse(s).as_object(); }

json::value valid_value(ParamType t) {
  switch (t) {
    case ParamType::string: return "x";
    case ParamType::name: return "walker";
    case ParamType::flag: return true;
    case ParamType::paths: return json::array{"a.txt"};
    case ParamType::count: return 1;
    case ParamType::millis: return 1000;
    case ParamType::offset: return 0;
    case ParamType::symbol: return "Math.max";
    case ParamType::fuzz: return "whitespace";
    case ParamType::request_id: return 7;
    case ParamType::dialog: return "accept";
    case ParamType::navigation: return "reload";
    case ParamType::bytes: return 4096;
  }
  return nullptr;
}

// A value of the wrong type, as JSON and as a query value ("" when a query
// cannot carry a wrong one: every query value is a string).
std::pair<json::value, std::string> wrong_value(ParamType t) {
  switch (t) {
    case ParamType::string: return {5, ""};
    case ParamType::name: return {"two words", "two%20words"};
    case ParamType::flag: return {"maybe", "maybe"};
    case ParamType::paths: return {"a.txt", ""};
    case ParamType::count: return {0, "0"};
    case ParamType::millis: return {"soon", "soon"};
    case ParamType::offset: return {-1, "-1"};
    case ParamType::symbol: return {"Math.max(1)", "Math.max(1)"};
    case ParamType::fuzz: return {"tabs", "tabs"};
    case ParamType::request_id: return {json::array{1}, ""};
    case ParamType::dialog: return {"ok", "ok"};
    case ParamType::navigation: return {"home", "home"};
    case ParamType::bytes: return {512, "512"};
  }
  return {nullptr, ""};
}

json::object required_params(const OpSpec& op) {
  json::object o;
  for (const Param& p : op.params)
    if (p.required) o[p.name] = valid_value(p.type);
  return o;
}

std::string query_name(const OpSpec& op, std::string_view name) {
  for (const auto& [from, to] : op.http->renamed)
    if (to == name) return std::string(from);
  return std::string(name);
}

std::string query_value(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  return json::serialize(v);
}

// The op with `params` on its HTTP route: a query for GET, a body for POST;
// for a route whose body is a parameter (POST /v1/edits), that one as the
// body and the others in the query. `raw` is appended to the query as it is.
client::Response http_call(const client::Gateway& gw, const OpSpec& op, const json::object& params,
                           const std::string& raw = "", bool authorized = true) {
  std::map<std::string, std::string> headers;
  if (authorized) headers["Authorization"] = "Bearer " + gw.cookie();
  const std::string_view streamed = op.http->body;
  if (ops::http_method(op) == "POST" && streamed.empty())
    return client::request(gw.port(), "POST", std::string(op.http->path) + (raw.empty() ? "" : "?" + raw.substr(1)),
                           json::serialize(params), headers);
  std::string query;
  for (const auto& kv : params) {
    if (kv.key() == streamed) continue;
    if (kv.value().is_array())
      for (const json::value& e : kv.value().get_array())
        query += "&" + query_name(op, kv.key()) + "=" + query_value(e);
    else
      query += "&" + query_name(op, kv.key()) + "=" + query_value(kv.value());
  }
  query += raw;
  if (!query.empty()) query[0] = '?';
  if (!streamed.empty()) {
    const json::value* body = params.if_contains(streamed);
    return client::request(gw.port(), "POST", std::string(op.http->path) + query,
                           body && body->is_string() ? std::string(body->get_string()) : "", headers);
  }
  return client::request(gw.port(), "GET", std::string(op.http->path) + query, "", headers);
}

// The final reply's reason on the WebSocket ("" when it succeeded).
std::string ws_reason(client::Ws& ws, const json::object& msg) {
  ws.send(json::serialize(msg));
  const json::object done = obj(ws.until_done().back());
  return done.contains("reason") ? std::string(done.at("reason").as_string()) : "";
}

}  // namespace

TEST_CASE("op table: parameters are checked alike from JSON and from a query", "[ops][unit]") {
  for (const OpSpec& op : op_table()) {
    INFO(op.name);
    json::object params = required_params(op);
    CHECK(check_params(op, params).has_value());
    params["bogus"] = 1;
    auto unknown = check_params(op, params);
    REQUIRE(unknown.has_value());
    CHECK(*unknown == std::vector<std::string>{"bogus"});
    CHECK(!params.contains("bogus"));
    for (const Param& p : op.params) {
      INFO(p.name);
      json::object wrong = required_params(op);
      wrong[p.name] = wrong_value(p.type).first;
      CHECK(check_params(op, wrong).error().code == Error::bad_request);
      if (p.required) {
        json::object missing = required_params(op);
        missing.erase(p.name);
        CHECK(check_params(op, missing).error().code == Error::missing_param);
      }
      if (const std::string q = wrong_value(p.type).second; !q.empty() && q.find('%') == std::string::npos) {
        std::vector<std::pair<std::string, std::string>> query{{std::string(p.name), q}};
        for (const auto& kv : required_params(op))
          if (kv.key() != p.name) query.emplace_back(kv.key(), query_value(kv.value()));
        auto from_query = params_from_query(op, query);
        REQUIRE(from_query.has_value());
        CHECK(check_params(op, *from_query).error().code == Error::bad_request);
      }
    }
  }
  // A query's numbers and flags are read as their types.
  const OpSpec& history = *find_op("history");
  auto q = params_from_query(history, {{"limit", "5"}, {"session", "s1"}});
  REQUIRE(q.has_value());
  CHECK(q->at("limit") == 5);
  CHECK(q->at("of_session") == "s1");
  CHECK(check_params(history, *q).has_value());
  CHECK(params_from_query(history, {{"limit", "5"}, {"limit", "6"}}).error().code == Error::bad_request);
}

TEST_CASE("op table: every op is reachable on the WebSocket and its HTTP route, and refused alike on both",
          "[server][ops]") {
  test::TempDir dir;
  test::write_file(dir / "x", "x\n");  // what the file ops find with the strings required_params gives
  client::Gateway gw(dir.str());
  client::Ws ws(gw.port());
  ws.login(gw.cookie());

  // describe is the table.
  ws.send(R"({"op":"describe","id":"d"})");
  const json::object described = obj(ws.until_done().back()).at("ops").as_object();
  CHECK(described.size() == op_table().size());

  std::vector<client::Response> answers;  // every HTTP answer of the walk
  for (const OpSpec& op : op_table()) {
    INFO(op.name);
    REQUIRE(described.contains(op.name));
    CHECK(described.at(op.name).as_object().contains("http") == op.http.has_value());

    if (op.name == "watch") {
      // Endless: its events come until the connection closes, on a
      // connection of its own, and no final reply can name an unknown name.
      client::Ws watcher(gw.port());
      watcher.login(gw.cookie());
      watcher.send(R"({"op":"watch","id":"w","bogus":1})");
      auto message = watcher.read();
      REQUIRE(message);
      const json::object first = obj(*message);
      CHECK(first.at("id") == "w");
      CHECK(first.at("event").at("type") == "pages");
      continue;
    }
    // Reachable, and an unknown parameter ignored and named in the final
    // reply, whatever the op made of the rest (shutdown's cookie is wrong).
    json::object bogus = required_params(op);
    bogus["bogus"] = 1;
    json::object msg = bogus;
    msg["op"] = op.name;
    ws.send(json::serialize(msg));
    CHECK(obj(ws.until_done().back()).at("unknown") == json::array{"bogus"});
    // A route whose body is a parameter takes the others from its query.
    const bool streamed = op.http && !op.http->body.empty();
    if (op.http) {
      const client::Response r = ops::http_method(op) == "POST" ? http_call(gw, op, bogus)
                                                                 : http_call(gw, op, required_params(op), "&bogus=1");
      CHECK(obj(r.body).at("unknown") == json::array{"bogus"});
      answers.push_back(r);
    }

    for (const Param& p : op.params) {
      INFO(p.name);
      const auto [json_wrong, query_wrong] = wrong_value(p.type);
      json::object wrong = required_params(op);
      wrong[p.name] = json_wrong;
      msg = wrong;
      msg["op"] = op.name;
      CHECK(ws_reason(ws, msg) == "bad_request");
      if (op.http && ops::http_method(op) == "POST" && !streamed) {
        answers.push_back(http_call(gw, op, wrong));
        CHECK(obj(answers.back().body).at("error") == "bad_request");
      } else if (op.http && !query_wrong.empty() && p.name != op.http->body) {
        json::object others = required_params(op);  // so that only the wrong value is wrong
        others.erase(p.name);
        answers.push_back(http_call(gw, op, others, "&" + query_name(op, p.name) + "=" + query_wrong));
        CHECK(obj(answers.back().body).at("error") == "bad_request");
      }
      if (p.required) {
        json::object missing = required_params(op);
        missing.erase(p.name);
        msg = missing;
        msg["op"] = op.name;
        CHECK(ws_reason(ws, msg) == "missing_param");
        if (op.http && p.name != op.http->body) {  // a body is never missing: it may be empty
          answers.push_back(http_call(gw, op, missing));
          CHECK(obj(answers.back().body).at("error") == "missing_param");
        }
      }
    }
    if (op.http) {
      // The op itself, and the door's refusals of the route. A streamed
      // route answers NDJSON: its last line is the final reply.
      if (streamed) {
        const client::Response r = http_call(gw, op, required_params(op));
        CHECK(r.status == 200);
        CHECK(obj(r.body.substr(r.body.rfind('\n', r.body.size() - 2) + 1)).at("status") == json::array{"done"});
      } else {
        answers.push_back(http_call(gw, op, required_params(op)));
      }
      if (ops::http_method(op) == "GET") CHECK(answers.back().status == 200);
      answers.push_back(client::request(gw.port(), ops::http_method(op) == "GET" ? "DELETE" : "GET",
                                        std::string(op.http->path), "", {{"Authorization", "Bearer " + gw.cookie()}}));
      CHECK(obj(answers.back().body).at("error") == "method_not_allowed");
      if (op.http->bearer) {
        answers.push_back(http_call(gw, op, required_params(op), "", false));
        CHECK(obj(answers.back().body).at("error") == "unauthorized");
      }
    }
  }

  // One code, one status, on every route: the status of each answer is its code's.
  for (const client::Response& r : answers) {
    INFO(r.body);
    const json::object o = obj(r.body);
    if (!o.contains("error")) {
      CHECK(r.status == 200);
      CHECK(o.at("status") == "ok");
      continue;
    }
    auto code = error_named(o.at("error").as_string());
    REQUIRE(code);
    CHECK(r.status == http_status(*code));
  }
}

TEST_CASE("op table: parameters over an op's size limit are refused payload_too_large on every door, naming the op",
          "[server][ops]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  // history takes small parameters; a cursor of 70000 bytes is over them
  // and well under every door's own bound.
  const OpSpec& history = *find_op("history");
  REQUIRE(history.size_limit == ops::small_params);
  const std::string big(history.size_limit + 4096, 'a');
  const std::string limit = std::to_string(history.size_limit);

  ws.send(json::serialize(json::object{{"op", "history"}, {"id", "h"}, {"before", big}}));
  json::object done = obj(ws.until_done().back());
  CHECK(done.at("reason") == "payload_too_large");
  // The WebSocket's error text is "<code>: <message>".
  CHECK(std::string(done.at("error").as_string()).find("history's parameters") != std::string::npos);
  CHECK(std::string(done.at("error").as_string()).find(limit) != std::string::npos);
  // Just under it, the op runs.
  ws.send(json::serialize(json::object{{"op", "history"}, {"id", "h2"}, {"before", big.substr(0, 1000)}}));
  done = obj(ws.until_done().back());
  CHECK((!done.contains("reason") || done.at("reason") != "payload_too_large"));

  // The same op as an MCP tool (2026-07-28, stateless).
  const json::object meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                          {"io.modelcontextprotocol/clientCapabilities", json::object{}}};
  const json::object call{
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "tools/call"},
      {"params", json::object{{"name", "history"}, {"arguments", json::object{{"before", big}}}, {"_meta", meta}}}};
  const client::Response r =
      client::request(gw.port(), "POST", "/mcp", json::serialize(call),
                      {{"Authorization", "Bearer " + gw.cookie()},
                       {"Content-Type", "application/json"},
                       {"Accept", "application/json, text/event-stream"},
                       {"MCP-Protocol-Version", "2026-07-28"},
                       {"Mcp-Method", "tools/call"},
                       {"Mcp-Name", "history"}});
  INFO(r.body);
  REQUIRE(r.status == 200);
  const json::object result = obj(r.body).at("result").as_object();
  CHECK(result.at("isError") == true);
  CHECK(result.at("structuredContent").at("error") == "payload_too_large");
  CHECK(std::string(result.at("structuredContent").at("message").as_string()).find("history's parameters") !=
        std::string::npos);

  // A POST route: undo's agent, over HTTP.
  const client::Response u = http_call(gw, *find_op("undo"), json::object{{"agent", big}});
  CHECK(u.status == 413);
  CHECK(obj(u.body).at("error") == "payload_too_large");
}
