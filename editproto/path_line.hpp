// The path-line rules: which line before "««« EDIT" names a file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace editproto {

// What a line says as a path line: the path it names, with decoration
// (backticks, **bold**, __bold__, a heading marker, a trailing colon)
// stripped, or why it names none (a clause to follow "it is not a path:").
struct PathLine {
  std::optional<std::string> path;
  std::string_view why_not;  // empty when path is set
};

PathLine read_path_line(std::string_view line);

// read_path_line(line).path.
std::optional<std::string> extract_path(std::string_view line);

// True for a Markdown fence line (``` or ~~~, optionally with an info string).
bool is_fence_line(std::string_view line);

std::string_view trim(std::string_view s);

// The run of spaces and tabs that starts a line.
std::string_view leading_ws(std::string_view s);

}  // namespace editproto
