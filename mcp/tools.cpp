#include "mcp/tools.hpp"

#include "services/target.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace gateway {

namespace json = boost::json;

const std::vector<McpTool>& mcp_tools() {
  using S = SessionArg;
  static const std::vector<McpTool> tools = {
      {"edit_apply", "edit", "Apply edit blocks",
       "Apply the edit blocks in `text` to the workspace and commit them. Each block names its file on the line "
       "before it, then ««« EDIT, the exact lines to find (whole lines, copied from the file as it is now, unique in "
       "it), ═══════ REPL, their replacement, »»» EDIT END. Each block applies or fails on its own; a failed block's "
       "diagnostic says what did not match and where: fix it and send that block again.",
       {"dry_run"}, std::nullopt, S::none, false, true, false, false},
      {"edit_check", "edit", "Check edit blocks",
       "Check the edit blocks in `text` against the workspace as edit_apply would apply them, and write nothing: "
       "each block's result, with the diagnostic of those that would fail.",
       {"dry_run"}, std::pair<std::string_view, bool>{"dry_run", true}, S::none, true, false, true, false},
      {"edit_undo", "undo", "Undo the last edit",
       "Revert the newest editgate edit that is not undone yet, as a new commit; refused (naming the file) when a "
       "file it changed has changed since.",
       {}, std::nullopt, S::none, false, true, false, false},
      {"history", "history", "Edit and REPL history",
       "editgate's commits, newest first: the branch's code changes (edit runs with their blocks, undos); with "
       "`repl: true` the REPL's history instead (every request and reply with its page and job). `next_before` "
       "continues with older ones.", {},
       std::nullopt, S::none, true, false, true, false},
      {"page_list", "pages", "List pages",
       "The live pages (the built-in Node page, its realms, browser tabs) with their kind, state, queue and chat log.",
       {}, std::nullopt, S::none, true, false, true, false},
      {"page_eval", "eval", "Run JavaScript in a page",
       "Run JavaScript in a page (the built-in Node page unless `page` or `session` names another) and return its "
       "value or error; what it prints comes too. The request and reply are written to the page's chat log and "
       "committed. Browser tabs are a person's logged-in pages: run only what the task needs.",
       {"silent"}, std::nullopt, S::optional, false, true, false, true},
      {"page_events", "events", "A page's events",
       "A page's console and background events from its events log (what it printed, in evals and outside them), "
       "the newest first by page; pass next_before as `before` for older ones.",
       {}, std::nullopt, S::optional, true, false, true, false},
      {"page_interrupt", "interrupt", "Interrupt a page",
       "Stop the job a page (or the session's realm) is running: interrupted, or idle when nothing runs.",
       {"interrupt-id"}, std::nullopt, S::optional, false, false, true, false},
      {"realm_open", "clone", "Open a realm",
       "A fresh JavaScript context in the built-in Node page, a page of its own with its own chat log: `value` is "
       "its session (pass it as `session` to page_eval and realm_close), `page` its name.",
       {}, std::nullopt, S::none, false, false, false, false},
      {"realm_close", "close", "Close a realm",
       "Close the realm realm_open made (its session); its chat log stays in the history.", {}, std::nullopt,
       S::required, false, true, true, false},
  };
  return tools;
}

const McpTool* find_tool(std::string_view name) {
  for (const McpTool& t : mcp_tools())
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

bool hidden(const McpTool& tool, std::string_view param) {
  return std::find(tool.hidden.begin(), tool.hidden.end(), param) != tool.hidden.end();
}

json::object input_schema(const McpTool& tool, const OpSpec& op) {
  json::object properties;
  json::array required;
  for (const Param& p : op.params) {
    if (hidden(tool, p.name)) continue;
    json::object schema = param_schema(p.type);
    if (!p.doc.empty()) schema["description"] = p.doc;
    properties[p.name] = std::move(schema);
    if (p.required) required.emplace_back(p.name);
  }
  if (tool.session != SessionArg::none) {
    json::object schema = param_schema(ParamType::name);
    schema["description"] = tool.session == SessionArg::required
                                ? "the session realm_open returned"
                                : "a session realm_open returned: runs in its realm";
    properties["session"] = std::move(schema);
    if (tool.session == SessionArg::required) required.emplace_back("session");
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
    const OpSpec* op = find_op(t.op);
    if (!op) continue;
    json::object annotations{{"title", t.title}, {"readOnlyHint", t.read_only}, {"openWorldHint", t.open_world}};
    if (!t.read_only) {
      annotations["destructiveHint"] = t.destructive;
      annotations["idempotentHint"] = t.idempotent;
    }
    list.emplace_back(json::object{{"name", t.name},
                                   {"title", t.title},
                                   {"description", t.description},
                                   {"inputSchema", input_schema(t, *op)},
                                   {"outputSchema", output_schema()},
                                   {"annotations", std::move(annotations)}});
  }
  return list;
}

Result<ToolCall> tool_params(const McpTool& tool, const json::value* arguments) {
  ToolCall call;
  if (arguments && !arguments->is_null()) {
    if (!arguments->is_object()) return Failure{Error::bad_request, "arguments must be an object"};
    call.params = arguments->get_object();
  }
  for (std::string_view h : tool.hidden)
    if (call.params.contains(h)) return Failure{Error::bad_request, std::string(tool.name) + " does not take " + std::string(h)};
  if (tool.session != SessionArg::none) {
    if (const json::value* s = call.params.if_contains("session")) {
      if (!s->is_string() || !valid_name(s->get_string()))
        return Failure{Error::bad_request, "session must be the session realm_open returned"};
      call.session = std::string(s->get_string());
      call.params.erase("session");
    } else if (tool.session == SessionArg::required) {
      return Failure{Error::missing_param, std::string(tool.name) + " needs \"session\""};
    }
  }
  if (tool.fixed) call.params[tool.fixed->first] = tool.fixed->second;
  return call;
}

}  // namespace gateway
