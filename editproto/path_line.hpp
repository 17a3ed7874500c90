// The path-line rules: which line before "««« EDIT" names a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace editproto {

// The path a line names, with decoration (backticks, **bold**, __bold__,
// a heading marker, a trailing colon) stripped; nullopt when the line is not
// a path line.
std::optional<std::string> extract_path(std::string_view line);

// True for a Markdown fence line (``` or ~~~, optionally with an info string).
bool is_fence_line(std::string_view line);

std::string_view trim(std::string_view s);

// The run of spaces and tabs that starts a line.
std::string_view leading_ws(std::string_view s);

}  // namespace editproto
