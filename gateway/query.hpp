// The request target of the HTTP door: its path and its decoded query
// parameters, and the parameters of an edit run taken from them.
#pragma once

#include "gateway/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gateway {

struct Target {
  std::string path;
  std::vector<std::pair<std::string, std::string>> params;  // in order, repeats kept
};

// Splits "/v1/edits?dry_run=1&context=a.py" and percent-decodes the query
// ('+' is a space). A malformed escape is Error::bad_request.
Result<Target> parse_target(std::string_view target);

// What an agent asks of one edit run, from a query or a WebSocket message.
struct EditParams {
  bool dry_run = false;
  std::string agent = "agent";
  std::string session;  // "": a new id per run
  std::optional<std::vector<std::string>> context;
  bool fuzz_whitespace = false;
};

// dry_run (true/false/1/0, or bare), agent, session, context (repeatable),
// fuzz (whitespace). Any other name is Error::bad_request naming each of
// them (unknown_edit_params), so a typo never passes silently.
Result<EditParams> edit_params(const Target& target);
// The names in the query /v1/edits does not take, each once, in order.
std::vector<std::string> unknown_edit_params(const Target& target);

// Shared by both doors: "true"/"1"/"" are true, "false"/"0" false.
std::optional<bool> parse_flag(std::string_view v);
// Agent and session names: 1-64 of [A-Za-z0-9._-].
bool valid_name(std::string_view name);

}  // namespace gateway
