// `editgate pages`: the running gateway's pages (GET /v1/pages, with the
// port and cookie from its state folder), as a table for people or as JSON.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct PagesArgs {
  std::string root;  // empty: gateway::find_workspace's
  std::string format = "text";
};

// Exit 0 with the list (empty too), 2 when no gateway answers or it refused.
int run_pages(const PagesArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
