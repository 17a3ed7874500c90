// The command-line clients of a running gateway (`eval`, `pages`, `page`): one HTTP
// request to it with the port and cookie from its state folder (the workspace is
// found by find_workspace, services/places.hpp). Every way of not getting an answer is a named code
// with a message that says it once, and no library's source location.
#pragma once

#include "services/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace cli {

// The --root of the commands that talk to a running gateway: they find it as git finds .git.
inline constexpr const char* gateway_root_help =
    "Workspace root (default: from the current folder up, the nearest a gateway served, else the top of its git "
    "repository)";

struct Answer {
  unsigned status = 0;
  boost::json::object body;
};

// `method target` with `body` (JSON) to the gateway serving `root`, waited
// for without a deadline (an eval takes as long as its timeout). Errors:
// not_found when no gateway runs or it stopped before answering, io when it
// cannot be reached for another reason, bad_json when its answer is not a
// JSON object, payload_too_large past 256 MiB.
services::Result<Answer> call_gateway(const std::string& root, std::string_view method, std::string_view target,
                            const std::string& body = "");

}  // namespace cli
