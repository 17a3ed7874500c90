#include "mcp/tools.hpp"

#include "services/target.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace mcp {

namespace json = boost::json;

const std::vector<McpTool>& mcp_tools() {
  static const std::vector<McpTool> tools = [] {
    std::vector<McpTool> list;
    for (const ops::OpSpec& op : ops::op_table())
      for (const ops::McpFace& face : op.mcp) list.push_back({&op, &face});
    return list;
  }();
  return tools;
}

std::optional<McpTool> find_tool(std::string_view name) {
  for (const McpTool& t : mcp_tools())
    if (t.face->tool == name) return t;
  return std::nullopt;
}

bool read_only(const McpTool& t) {
  const auto& fixed = t.face->fixed;
  return t.op->effect == ops::Effect::reads || (fixed && fixed->first == "dry_run" && fixed->second);
}

bool destructive(const McpTool& t) { return t.op->effect == ops::Effect::destroys && !read_only(t); }

namespace {

bool hidden(const ops::McpFace& face, std::string_view param) {
  return std::find(face.hidden.begin(), face.hidden.end(), param) != face.hidden.end();
}

json::object input_schema(const ops::McpFace& tool, const ops::OpSpec& op) {
  json::object properties;
  json::array required;
  for (const ops::Param& p : op.params) {
    if (hidden(tool, p.name)) continue;
    json::object schema = param_schema(p.type);
    if (!p.doc.empty()) schema["description"] = p.doc;
    properties[p.name] = std::move(schema);
    if (p.required) required.emplace_back(p.name);
  }
  if (tool.session != ops::SessionArg::none) {
    json::object schema = param_schema(ops::ParamType::name);
    schema["description"] = tool.session == ops::SessionArg::required
                                ? "the session realm_open returned"
                                : "a session realm_open returned: runs in its realm";
    properties["session"] = std::move(schema);
    if (tool.session == ops::SessionArg::required) required.emplace_back("session");
  }
  json::object schema{{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

// A reply field's types as JSON Schema; no "type" for any value.
json::object field_schema(unsigned types) {
  const auto names = ops::type_names(types);
  if (names.empty()) return {};
  if (names.size() == 1) return {{"type", names.front()}};
  return {{"type", json::array(names.begin(), names.end())}};
}

// Every result is an object, one of three: the op's final reply (its reply
// shape, with the block or output messages in `out` for an op that
// streams), a failure (its code and message, beside what the op said), or
// a result too large to send, kept aside (McpServer's tool_result). Any of
// them names the unknown arguments (dispatch's naming_unknown).
json::object output_schema(const ops::OpSpec& op) {
  json::object properties;
  json::array required;
  for (const ops::ReplyField& f : op.reply) {
    properties[f.name] = field_schema(f.types);
    if (f.always) required.emplace_back(f.name);
  }
  if (op.streams) properties["out"] = field_schema(ops::json_array);
  properties["error"] = {{"type", "string"}, {"description", "the failure's code, when it failed"}};
  properties["message"] = field_schema(ops::json_string);
  properties["unknown"] = {{"type", "array"}, {"items", json::object{{"type", "string"}}}};
  properties["unknown_more"] = field_schema(ops::json_integer);
  properties["truncated"] = field_schema(ops::json_boolean);
  properties["bytes"] = field_schema(ops::json_integer);
  properties["resource"] = {{"type", "string"}, {"description", "where resources/read reads a result too large to send"}};
  json::array one_of{json::object{{"required", std::move(required)}},
                     json::object{{"required", json::array{"error", "message"}}},
                     json::object{{"required", json::array{"truncated", "bytes", "resource"}}}};
  return {{"type", "object"}, {"properties", std::move(properties)}, {"anyOf", std::move(one_of)}};
}
}  // namespace

json::array tools_listed() {
  json::array list;
  for (const McpTool& t : mcp_tools()) {
    const ops::McpFace& f = *t.face;
    json::object annotations{{"title", f.title}, {"readOnlyHint", read_only(t)}, {"openWorldHint", f.open_world}};
    if (!read_only(t)) {
      annotations["destructiveHint"] = destructive(t);
      annotations["idempotentHint"] = f.idempotent;
    }
    list.emplace_back(json::object{{"name", f.tool},
                                   {"title", f.title},
                                   {"description", f.description},
                                   {"inputSchema", input_schema(f, *t.op)},
                                   {"outputSchema", output_schema(*t.op)},
                                   {"annotations", std::move(annotations)}});
  }
  return list;
}

services::Result<ToolCall> tool_params(const McpTool& t, const json::value* arguments) {
  const ops::McpFace& tool = *t.face;
  ToolCall call;
  if (arguments && !arguments->is_null()) {
    if (!arguments->is_object()) return services::Failure{services::Error::bad_request, "arguments must be an object"};
    call.params = arguments->get_object();
  }
  for (std::string_view h : tool.hidden)
    if (call.params.contains(h)) return services::Failure{services::Error::bad_request, std::string(tool.tool) + " does not take " + std::string(h)};
  if (tool.session != ops::SessionArg::none) {
    if (const json::value* s = call.params.if_contains("session")) {
      if (!s->is_string() || !services::valid_name(s->get_string()))
        return services::Failure{services::Error::bad_request, "session must be the session realm_open returned"};
      call.session = std::string(s->get_string());
      call.params.erase("session");
    } else if (tool.session == ops::SessionArg::required) {
      return services::Failure{services::Error::missing_param, std::string(tool.tool) + " needs \"session\""};
    }
  }
  if (tool.fixed) call.params[tool.fixed->first] = tool.fixed->second;
  return call;
}

}  // namespace mcp
