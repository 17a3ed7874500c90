// A push run in a child process: `editgate __push`, the gateway's own
// binary (/proc/self/exe) under a hidden command, opens the repository,
// pushes with libgit2 and prints the outcome as a JSON line. libgit2 1.5 has
// no timeout of its own, so a remote that accepts and never answers holds a
// push forever; a thread cannot be stopped inside libgit2, a process can.
// The pusher's thread waits for the child's lines with poll() and kills it
// when the remote says nothing for too long, or when the gateway stops.
// Nothing secret is in the child's arguments: it inherits the environment,
// and with it EDITGATE_PUSH_USERNAME and EDITGATE_PUSH_PASSWORD.
#pragma once

#include "services/error.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <ostream>
#include <string>

namespace services {

// The child's side: `editgate __push --root ROOT --remote REMOTE`. Lines on
// `out`: {"alive":true} now and then while the push makes progress, then
// the outcome, {"ref","commit","previous","up_to_date"} or
// {"error":"<code>","message"}. Exit 0 when pushed, 1 when not.
int run_push_child(const std::string& root, const std::string& remote, std::ostream& out);

struct ChildLimits {
  std::chrono::milliseconds silence{30'000};  // killed after this long without a line: remote_timeout
  // Killed then whatever it says (the last push while the gateway stops): remote_timeout.
  std::chrono::steady_clock::time_point until = std::chrono::steady_clock::time_point::max();
  int stop_fd = -1;  // killed at once when this becomes readable: shutting_down
};

// The parent's side, on the pusher's thread: runs the child for `remote` and
// returns its outcome's fields, or its failure; the child is reaped before
// this returns.
Result<boost::json::object> push_in_child(const std::string& root, const std::string& remote,
                                          const ChildLimits& limits);

}  // namespace services
