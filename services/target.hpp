// The request target of an HTTP request: its path and its decoded query
// parameters; the rules for flags and names every door shares.
#pragma once

#include "services/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace services {

struct Target {
  std::string path;
  std::vector<std::pair<std::string, std::string>> params;  // in order, repeats kept
};

// Splits "/v1/edits?dry_run=1&context=a.py" and percent-decodes the query
// ('+' is a space). A malformed escape is Error::bad_request.
Result<Target> parse_target(std::string_view target);

// Shared by both doors: "true"/"1"/"" are true, "false"/"0" false.
std::optional<bool> parse_flag(std::string_view v);
// Agent and session names: 1-64 of [A-Za-z0-9._-].
bool valid_name(std::string_view name);

}  // namespace services
