// JSON-RPC 2.0 as MCP uses it: the messages the MCP server writes, and the
// error codes both revisions name.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace mcp {

enum class RpcCode : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  session = -32000,                // 2025-11-25's session faults (no session, too many)
  session_not_found = -32001,
  resource_not_found = -32002,     // 2025-11-25; 2026-07-28 uses invalid_params
  header_mismatch = -32020,        // 2026-07-28: a header that is missing or disagrees with the body
  missing_capability = -32021,
  unsupported_version = -32022,
};

// editgate as MCP names it: {name, version, title}.
boost::json::object mcp_server_info();

// A response with `result`; a 2026-07-28 one (`modern`) carries its
// resultType and the server's identity in _meta.
std::string rpc_result(const boost::json::value& id, boost::json::object result, bool modern);
std::string rpc_error(const boost::json::value& id, RpcCode code, std::string_view message,
                      boost::json::value data = nullptr);
std::string rpc_notification(std::string_view method, boost::json::object params);

}  // namespace mcp
