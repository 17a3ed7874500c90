// `editgate mcp`: the Model Context Protocol over stdio, as a bridge to the
// gateway's POST /mcp (the MCP server exists once, in the gateway). Each
// standard-input line is one JSON-RPC message, POSTed on a connection of its
// own (several run at once: a long eval does not hold up a ping or a
// cancel); what comes back (a JSON answer, or the events of an SSE stream
// as they arrive) goes to standard output, one message a line. Standard
// output carries nothing else; diagnostics go to standard error.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace cli {

struct McpArgs {
  std::string root;  // empty: the workspace found from the current folder (cli/mcp_launch.hpp)
  // Of a gateway it starts, when free (0: any free port); none: the
  // workspace's own (services::default_port).
  std::optional<unsigned short> port;
};

// Serves until standard input ends (or SIGINT/SIGTERM, or standard output
// closes): exit 0. Exit 2 when no workspace can be found.
int run_mcp(const McpArgs& args, std::ostream& err);

}  // namespace cli
