// What the workspace's two files (workspace.cpp: paths and reads;
// workspace_write.cpp: writes) share: system errors as failures, stamps and
// kinds of file. Internal to editproto::Workspace.
#pragma once

#include "editproto/reason.hpp"
#include "editproto/workspace.hpp"

#include <sys/stat.h>

#include <string>
#include <string_view>

namespace editproto::detail {

// "<what> <path>: <strerror(err)>", as io_error.
Failure os_failure(std::string_view what, const std::string& path, int err);

Stamp stamp_of(const struct stat& st);

// "a folder", "a named pipe", ... for a file that is not a regular one.
const char* kind_of(mode_t m);

}  // namespace editproto::detail
