// Where the libraries tell the person running the gateway what happened (a
// page connected, an edit run done, a write that failed): the REPL and the
// gateway above it log here, through a hook the program sets, so no library
// writes to a stream of its own. `editgate serve` prints each line on
// standard error as "editgate: <line>"; unset, lines are dropped (tests).
#pragma once

#include <functional>
#include <string_view>

namespace repl {

using LogSink = std::function<void(std::string_view line)>;

// Set once, before the threads that log start.
void set_log_sink(LogSink sink);

// One line, without its newline; lines from several threads never interleave.
void log_line(std::string_view line);

}  // namespace repl
