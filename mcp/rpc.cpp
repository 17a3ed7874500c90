#include "mcp/rpc.hpp"

#include <boost/json.hpp>

namespace mcp {

namespace json = boost::json;

json::object mcp_server_info() { return {{"name", "editgate"}, {"title", "editgate"}, {"version", EDITGATE_VERSION}}; }

std::string rpc_result(const json::value& id, json::object result, bool modern) {
  if (modern) {
    result["resultType"] = "complete";
    json::object meta;
    if (json::value* m = result.if_contains("_meta"); m && m->is_object()) meta = m->get_object();
    meta["io.modelcontextprotocol/serverInfo"] = json::object{{"name", "editgate"}, {"version", EDITGATE_VERSION}};
    result["_meta"] = std::move(meta);
  }
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

std::string rpc_error(const json::value& id, RpcCode code, std::string_view message, json::value data) {
  json::object error{{"code", static_cast<int>(code)}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}});
}

std::string rpc_notification(std::string_view method, json::object params) {
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace mcp
