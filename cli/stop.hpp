// `editgate stop`: stops the gateway serving the workspace (the shutdown op,
// POST /v1/shutdown, with the cookie from its state folder) and waits until
// it is gone, its lock released.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct StopArgs {
  std::string root;  // empty: gateway::find_workspace's
  double timeout_s = 30;
};

// Exit 0 once the gateway is gone, or when none ran (saying so); 1 when it
// is still running after the timeout; 2 when there is no workspace or the
// gateway refused.
int run_stop(const StopArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
