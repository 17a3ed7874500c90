// `editgate where`: every place editgate keeps something for a workspace
// (services/places.hpp) and whether a gateway serves it, for people and for
// agents that only read and write files. Reads only; creates nothing.
#pragma once

#include <ostream>
#include <string>

namespace cli {

struct WhereArgs {
  std::string root;  // empty: gateway::find_workspace's
  std::string format = "text";
  std::string place;  // one place's key ("cookie", "inbox"): only its path is printed
};

// Exit 0 with the places; 2 when there is no workspace (outside any
// repository without --root) or no such place.
int run_where(const WhereArgs& args, std::ostream& out, std::ostream& err);

}  // namespace cli
