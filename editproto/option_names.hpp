// How a diagnostic names an option of the run, so that the reader can set
// it where it is: the command line's `--fuzz whitespace`, the JSON
// parameters' (MCP tool arguments, HTTP bodies, WebSocket messages) `fuzz:
// "whitespace"`, a query's `fuzz=whitespace` (POST /v1/edits), or none
// where the door takes no option (the inbox). A parameter of the run,
// never a rewrite of its messages.
#pragma once

#include <string>
#include <string_view>

namespace editproto {

enum class OptionSyntax { command_line, json, query, none };

// "" for OptionSyntax::none: the reader has no such option to set.
inline std::string option_named(OptionSyntax syntax, std::string_view name, std::string_view value) {
  if (syntax == OptionSyntax::none) return {};
  if (syntax == OptionSyntax::json) return std::string(name) + ": \"" + std::string(value) + "\"";
  if (syntax == OptionSyntax::query) return std::string(name) + "=" + std::string(value);
  return "--" + std::string(name) + " " + std::string(value);
}

}  // namespace editproto
