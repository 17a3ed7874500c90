// What the workspace's files (workspace.cpp: paths and reads;
// workspace_write.cpp: replacing writes; workspace_tail.cpp: in-place tail
// writes) share: system errors as failures, stamps and
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

// Leases (fcntl F_SETLEASE) make another process's open of a file wait until
// the holder lets go, and tell the holder someone is waiting. The kernel
// signals a lease break with SIGIO, whose default action ends the process;
// editgate waits for nothing on it, so it is ignored (unless someone set it).
void ignore_lease_signals();

}  // namespace editproto::detail
