// `editgate dashboard`: a new one-time sign-in URL for the running
// gateway's dashboard (POST /v1/dashboard-url, with the cookie from
// its state folder), for a browser that has none (each URL signs in one,
// once). A viewer's: any agent can run this, so it looks and never approves.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct DashboardArgs {
  std::string root;  // empty: gateway::find_workspace's
};

// Exit 0 with the URL on `out`, 2 when no gateway answers or it refused.
int run_dashboard(const DashboardArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
