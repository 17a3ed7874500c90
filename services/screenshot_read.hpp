// A screenshot of a page as the dashboard shows it: the PNG saved at
// debug/<page>.screenshots/<n>.png, read through the edit engine's rules
// (editproto::Workspace) and nothing else. Anyone who commits can put any
// file at any tracked path, so the path must be exactly that shape, reach
// the file through no symlink, and the file must be small enough to send.
// Synchronous; the dashboard's door runs it on the worker thread.
#pragma once

#include "editproto/workspace.hpp"
#include "services/error.hpp"
#include "services/owned_pages.hpp"  // max_screenshot_bytes: page_screenshot saves none larger

#include <string>
#include <string_view>

namespace services {

// Whether `path` is exactly debug/<page>.screenshots/<n>.png: <page> 1-64
// of [A-Za-z0-9._-] starting with a letter or digit, <n> 1-9 digits.
bool screenshot_path(std::string_view path);

// The file's bytes. path_refused: any other path, or one that goes
// through a symlink; not_found: no such file (or not a regular file);
// file_too_large: over max_screenshot_bytes; conflict: it kept changing
// while it was read; io.
Result<std::string> read_screenshot(const editproto::Workspace& ws, std::string_view path);

}  // namespace services
