// How `editgate mcp` starts a gateway in the background, when none serves
// its workspace, that outlives the bridge (docs/decisions/mcp.md, "editgate
// mcp"). No Beast here.
#pragma once

#include "services/error.hpp"

#include <sys/types.h>

#include <optional>
#include <string>

namespace cli::bridge {

// Starts `<this binary> serve --root ws` detached: its own session, standard
// input /dev/null, output and errors appended to serve.log in the
// workspace's state folder, private to the user (the one before kept as
// serve.log.1). On `port` when it is free, else on any free port (0 asks
// for that). The child's pid; Error::io when it cannot start.
services::Result<pid_t> start_gateway(const std::string& ws, std::optional<unsigned short> port);

// Whether a child started by start_gateway has exited (and reaps it).
bool exited(pid_t child);

// The path of the log of the gateways `editgate mcp` starts.
std::string serve_log(const std::string& ws);

}  // namespace cli::bridge
