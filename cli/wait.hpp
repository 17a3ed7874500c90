// `editgate wait`: blocks until a page's job or an inbox message is answered,
// reading only the agents' files in .git/editgate/ (see repl/agent_files.hpp and
// gateway/inbox.hpp), so it works for any agent that can run a command.
#pragma once

#include <ostream>
#include <optional>
#include <string>

namespace cli {

struct WaitArgs {
  std::string root;    // empty: gateway::find_workspace's
  std::string page;   // a page's name (node-1a2b), or a bare name with one page (node)
  std::string inbox;  // an inbox message's name, without .md
  std::optional<unsigned long long> job;
  double timeout_s = 120;
  std::string format = "text";
};

// Exit codes: 0 the job or message succeeded, 1 it failed (the page threw,
// timed out, a block did not apply), 2 a usage error or no gateway, 124 the
// timeout passed first.
int run_wait(const WaitArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
