// The MCP tools: each is one op of the op table under the name every MCP
// client sees, with its input schema generated from the op's parameters, its
// annotations, and how its final reply becomes a tool result. Nothing here
// runs an op: the MCP server (mcp/server.hpp) does, as every door does.
#pragma once

#include "services/error.hpp"
#include "ops/table.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gateway {

// Whether a tool takes the agents' session as an argument (the envelope's
// `session` on the WebSocket): the realm a `realm_open` made.
enum class SessionArg { none, optional, required };

struct McpTool {
  std::string_view name;
  std::string_view op;  // the op it calls, by its name in the table
  std::string_view title;
  std::string_view description;
  std::vector<std::string_view> hidden = {};  // op parameters the tool does not offer
  std::optional<std::pair<std::string_view, bool>> fixed = std::nullopt;  // a flag the tool sets (edit_check's dry_run)
  SessionArg session = SessionArg::none;
  // The annotations, as true as editgate can make them: clients use them to
  // ask a person before a destructive call.
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  bool open_world = false;  // reaches outside the workspace: a user's browser tab
};

// The tools, in the order tools/list gives them.
const std::vector<McpTool>& mcp_tools();
const McpTool* find_tool(std::string_view name);

// tools/list's `tools`: name, title, description, inputSchema (JSON Schema
// 2020-12, from the op's parameters), outputSchema and annotations.
boost::json::array tools_listed();

// A tool's arguments as its op's parameters (checked against the table by
// the caller), and the session it names ("" none). bad_request when
// `arguments` is not an object, the session is not a session id, or the
// tool's fixed flag is given.
struct ToolCall {
  boost::json::object params;
  std::string session;
};
Result<ToolCall> tool_params(const McpTool& tool, const boost::json::value* arguments);

// A tool result's size past which its structured content is kept aside and
// linked (a resource) instead of sent: about 8k tokens.
inline constexpr std::size_t result_inline_bytes = 32 * 1024;

}  // namespace gateway
