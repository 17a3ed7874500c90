// `editgate mcp config --client NAME`: the snippet that adds editgate to an
// agent client's MCP servers (its file and keys), for the stdio bridge and
// for Streamable HTTP with the token from an environment variable.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct McpConfigArgs {
  std::string client;  // claude, codex, cursor, vscode, gemini
  std::string root;    // empty: the client's folder decides (the bridge searches upward from it)
};

int run_mcp_config(const McpConfigArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
