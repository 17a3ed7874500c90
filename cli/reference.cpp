#include "cli/reference.hpp"

#include "mcp/tools.hpp"
#include "ops/table.hpp"
#include "services/error.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <ostream>
#include <sstream>

namespace cli {

namespace {

using ops::OpSpec;

// Text for a table cell: a '|' would end the cell.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string tools_of(const OpSpec& op) {
  std::string names;
  for (const ops::McpFace& f : op.mcp) names += (names.empty() ? "`" : ", `") + std::string(f.tool) + "`";
  return names.empty() ? "–" : names;
}

// A reply field's JSON types, in words: "string or null".
std::string types_of(unsigned types) {
  std::string words;
  for (std::string_view name : ops::type_names(types)) words += (words.empty() ? "" : " or ") + std::string(name);
  return words.empty() ? "any value" : words;
}

// "16 MiB", "64 KiB": a size limit as written.
std::string size_of(std::size_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

// A parameter's rule, and how a GET's query repeats a list.
std::string rule_words(const ops::Param& p) {
  std::string words(ops::param_rule(p.type));
  if (p.type == ops::ParamType::paths) words += " (over HTTP, the name repeated)";
  return words;
}

void reply_section(std::ostream& out, const OpSpec& op) {
  if (op.reply.empty()) return;
  out << "| final reply | type | always |\n|---|---|---|\n";
  for (const ops::ReplyField& f : op.reply)
    out << "| `" << f.name << "` | " << types_of(f.types) << " | " << (f.always ? "yes" : "no") << " |\n";
  out << "\n";
}

void op_section(std::ostream& out, const OpSpec& op) {
  out << "### `" << op.name << "`\n\n" << op.doc << ".\n\n";
  if (op.http)
    out << "- HTTP: `" << ops::http_method(op) << " " << op.http->path << "`"
        << (op.http->bearer ? " (with the cookie as a Bearer token)" : " (no cookie)") << "\n";
  if (op.http)
    for (const auto& [from, to] : op.http->renamed) out << "- HTTP query `" << from << "` is `" << to << "`\n";
  if (op.http && !op.http->body.empty())
    out << "- HTTP body: `" << op.http->body << "`, read as it arrives; the other parameters and `session` in the "
        << "query; an NDJSON line per reply\n";
  out << "- MCP: " << tools_of(op) << "\n";
  out << "- Replies: " << (op.streams ? "messages while it runs, then the final reply" : "the final reply") << "\n";
  out << "- Parameters: at most " << size_of(op.size_limit) << " as JSON (else `payload_too_large`)\n\n";
  reply_section(out, op);
  if (op.params.empty()) {
    out << "No parameters.\n\n";
    return;
  }
  out << "| parameter | required | value | meaning |\n|---|---|---|---|\n";
  for (const ops::Param& p : op.params)
    out << "| `" << p.name << "` | " << (p.required ? p.or_else.empty() ? std::string("yes") : "yes, or `" + std::string(p.or_else) + "`" : std::string("no")) << " | " << cell(rule_words(p))
        << " | " << cell(p.doc) << " |\n";
  out << "\n";
}

}  // namespace

std::string reference_markdown() {
  std::ostringstream out;
  out << "# Reference\n\n"
         "Generated from the op table (`ops/table.cpp`), the MCP tools (`mcp/tools.cpp`) and the error table\n"
         "(`services/error.cpp`) by `editgate describe --markdown`; `tests/cli/test_reference.cpp` fails when this\n"
         "file differs from what the code generates. How each door carries a request and its replies:\n"
         "[docs/guide/protocol.md](guide/protocol.md). Protocol version "
      << ops::protocol_version << ".\n\n";
  out << "## Ops\n\n| op | HTTP | MCP tool | what it does |\n|---|---|---|---|\n";
  for (const OpSpec& op : ops::op_table())
    out << "| [`" << op.name << "`](#" << op.name << ") | "
        << (op.http ? "`" + std::string(ops::http_method(op)) + " " + std::string(op.http->path) + "`" : std::string("–"))
        << " | " << tools_of(op) << " | " << cell(op.doc) << " |\n";
  out << "\n";
  for (const OpSpec& op : ops::op_table()) op_section(out, op);
  out << "## MCP tools\n\nEach tool is an op; its input schema is the op's parameters (less those it hides), and\n"
         "`session` where the tool takes a realm.\n\n"
         "| tool | op | title | read-only | destructive | idempotent | open world |\n|---|---|---|---|---|---|---|\n";
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  for (const mcp::McpTool& t : mcp::mcp_tools())
    out << "| `" << t.face->tool << "` | `" << t.op->name << "` | " << cell(t.face->title) << " | "
        << yes(mcp::read_only(t)) << " | " << yes(mcp::destructive(t)) << " | " << yes(t.face->idempotent)
        << " | " << yes(t.face->open_world) << " |\n";
  out << "\n## Error codes\n\nEvery refusal names one of these codes, on every door: over HTTP with its status, on the\n"
         "WebSocket in `reason`, in an MCP tool result as `error`.\n\n"
         "| code | HTTP status | meaning |\n|---|---|---|\n";
  for (const services::ErrorInfo& e : services::error_table())
    out << "| `" << e.name << "` | " << e.status << " | " << cell(e.meaning) << " |\n";
  return out.str();
}

CLI::App* add_describe(CLI::App& app, DescribeArgs& a) {
  CLI::App* describe = app.add_subcommand("describe", "Print the ops the gateway offers as JSON, as the describe op "
                                                      "answers; no gateway needs to run");
  describe->add_flag("--markdown", a.markdown, "Print the reference instead: every op, its parameters, HTTP route "
                                               "and MCP tool, and the error codes (docs/reference.md)");
  return describe;
}

int run_describe(const DescribeArgs& a, std::ostream& out) {
  if (a.markdown) out << reference_markdown();
  else out << boost::json::serialize(ops::describe_ops()) << "\n";
  return 0;
}

}  // namespace cli
