// `editgate eval PAGE CODE`: one eval through the running gateway (its port
// and cookie from its state folder, see cli/remote.hpp), printed as the log
// shows it.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct EvalArgs {
  std::string root;  // empty: gateway::find_workspace's
  std::string page;
  std::string code;
  std::string agent = "cli";
  unsigned timeout_ms = 0;  // 0: the gateway's default
  bool silent = false;
  std::string format = "text";
};

// Exit 0 with a value, 1 when the code threw (or timed out), 2 when there is
// no gateway or it refused.
int run_eval(const EvalArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
