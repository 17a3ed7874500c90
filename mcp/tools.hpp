// The MCP tools: each is an op of the op table, through one of its faces
// (OpSpec::mcp: name, title, description, what it hides). Here the faces
// become what MCP clients read: input schemas from the op's parameters,
// annotations from its effect, and a call's arguments as the op's
// parameters. Nothing here runs an op: the MCP server dispatches it, as
// every door does.
#pragma once

#include "services/error.hpp"
#include "ops/table.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

struct McpTool {
  const ops::OpSpec* op;
  const ops::McpFace* face;
};

// The tools, in the op table's order (tools/list's).
const std::vector<McpTool>& mcp_tools();
std::optional<McpTool> find_tool(std::string_view name);

// The MCP hints of a tool, from its op's effect: a tool whose fixed flag is
// dry_run=true only reads.
bool read_only(const McpTool& tool);
bool destructive(const McpTool& tool);

// Whether the tool's `agent` argument is its commits' author, for which the
// client's own name stands in when the model gives none: the op takes
// `agent` and changes something (history's `agent` only filters what it reads).
bool takes_author(const McpTool& tool);

// tools/list's `tools`: name, title, description, inputSchema (JSON Schema
// 2020-12, from the op's parameters), outputSchema (from its reply shape) and
// annotations.
boost::json::array tools_listed();

// A tool's arguments as its op's parameters (checked against the table by
// dispatch), and the session it names ("" none). bad_request when
// `arguments` is not an object, the session is not a session id, or the
// tool's fixed flag is given.
struct ToolCall {
  boost::json::object params;
  std::string session;
};
services::Result<ToolCall> tool_params(const McpTool& tool, const boost::json::value* arguments);

// A tool result's size past which its structured content is kept aside and
// linked (a resource) instead of sent: about 8k tokens.
inline constexpr std::size_t result_inline_bytes = 32 * 1024;

}  // namespace mcp
