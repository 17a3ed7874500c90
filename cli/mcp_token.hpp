// `editgate mcp token`: the Streamable HTTP snippets' token. Makes sure a
// gateway serves the workspace (started in the background as `editgate mcp`
// starts one, cli/mcp_finder.hpp), then prints its cookie, so the snippet's
// `export EDITGATE_TOKEN="$(editgate mcp token)"` works on a machine where no
// gateway ran yet and no cookie exists.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace cli {

struct McpTokenArgs {
  std::string root;                   // empty: find_workspace's
  std::optional<unsigned short> port;  // of a gateway started here
};

// Exit 0 with the cookie on `out` (what it started, and a port other than the
// workspace's own, on `err`); 2 when there is no workspace or no gateway
// would start.
int run_mcp_token(const McpTokenArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
