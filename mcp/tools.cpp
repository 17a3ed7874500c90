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

// Every result is an object: the op's final reply, or on failure its error
// code and message beside what the op said.
json::object output_schema() {
  return {{"type", "object"},
          {"properties", json::object{{"error", json::object{{"type", "string"},
                                                             {"description", "the failure's code, when it failed"}}},
                                      {"message", json::object{{"type", "string"}}}}}};
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
                                   {"outputSchema", output_schema()},
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
