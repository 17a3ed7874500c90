// The commit author an MCP client's own name gives, for a call whose model
// named none (`agent` left out): the client's `clientInfo.name`, from its
// initialize (2025-11-25) or from each request's _meta (2026-07-28).
#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace mcp {

// `name` made an agent name (1-64 of A-Z a-z 0-9 . _ -, as the `agent`
// parameter is checked): each run of other characters becomes one '-', and
// none is left at either end; "" when nothing is left. The name is client
// data: it becomes an author and nothing else.
std::string author_from_client(std::string_view name);

// The author from a clientInfo object (`{"name": ...}`); "" when it names none.
std::string author_from_client_info(const boost::json::value* client_info);

}  // namespace mcp
