#include "mcp/tools.hpp"

#include "editproto/unicode.hpp"
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

bool takes_author(const McpTool& t) {
  if (t.op->effect == ops::Effect::reads) return false;
  for (const ops::Param& p : t.op->params)
    if (p.name == "agent") return true;
  return false;
}

namespace {

bool hidden(const ops::McpFace& face, std::string_view param) {
  return std::find(face.hidden.begin(), face.hidden.end(), param) != face.hidden.end();
}

bool takes(const McpTool& t, std::string_view name) {
  if (name == "session") return t.face->session != ops::SessionArg::none;
  if (hidden(*t.face, name)) return false;
  for (const ops::Param& p : t.op->params)
    if (p.name == name) return true;
  return false;
}

// The arguments a tool takes, for a refusal: "code, page, session".
std::string arguments_of(const McpTool& t) {
  std::string list;
  for (const ops::Param& p : t.op->params)
    if (!hidden(*t.face, p.name)) list += (list.empty() ? "" : ", ") + std::string(p.name);
  if (t.face->session != ops::SessionArg::none) list += list.empty() ? "session" : ", session";
  return list.empty() ? "no arguments" : list;
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
// shape; for an op that streams, the block results before it in `blocks`
// and what a page printed in `out`), a failure (its code and message,
// beside what the op said), or a result too large to send, kept aside
// (McpServer's tool_result). Unknown arguments are refused (tool_params),
// so no result names them.
json::object output_schema(const ops::OpSpec& op) {
  json::object properties;
  json::array required;
  for (const ops::ReplyField& f : op.reply) {
    properties[f.name] = field_schema(f.types);
    if (f.always) required.emplace_back(f.name);
  }
  if (op.streams) {
    properties["blocks"] = {{"type", "array"}, {"description", "each edit block's result, in order"}};
    properties["out"] = {{"type", "array"}, {"description", "what the page printed, message by message"}};
  }
  properties["error"] = {{"type", "string"}, {"description", "the failure's code, when it failed"}};
  properties["message"] = field_schema(ops::json_string);
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
  // An argument the tool does not take is refused, as its input schema
  // says (additionalProperties: false): ignored, a mistyped `page` would
  // run the code elsewhere.
  std::string unknown;
  std::size_t named = 0;
  for (const auto& kv : call.params)
    if (!takes(t, kv.key()) && ++named <= 8)
      unknown += (unknown.empty() ? "\"" : ", \"") + editproto::unicode::to_valid_utf8(kv.key().substr(0, 64)) + "\"";
  if (named > 8) unknown += " and " + std::to_string(named - 8) + " more";
  if (!unknown.empty())
    return services::Failure{services::Error::bad_request,
                             std::string(tool.tool) + " does not take " + unknown + "; it takes " + arguments_of(t)};
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
