// The inbox of agents that only write files, a door of the edit op. An
// agent drops inbox/<name>.md in the agents' folder (.git/editgate/, where
// no commit can put a file: services/places.hpp), a message of edit blocks
// (an LLM's answer). The door hands it to the edit op through the one
// dispatch, its text streamed from the file as a POST /v1/edits body is,
// and the op's replies write the answer in outbox/ beside it:
//   <name>.json              the op's final reply (`ok`, `summary`, `text`:
//                            what `apply` prints, the commit fields) with
//                            `blocks` (the op's block messages), `status`
//                            (["done"], or ["done", "error"] unless every
//                            block did what was asked and the commit landed)
//                            and `file`
//   <name>.md                the message, moved out of the inbox as it is
//                            taken, before any of it is applied: a second
//                            event for one drop finds nothing to take
//   <name>.completed.marker  a sequence number; written last
// The old answers to a name are removed before its new message is read, and
// the message leaves the inbox before the marker is written, so "inbox file
// gone and marker there" always means this message's answer is complete.
#pragma once

#include "services/gateway.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace gateway {

// Takes inbox/<name> (a file name ending in .md) under `agents`. A symlink
// or anything but a regular file there is refused as "not a file"; a file
// that cannot be opened for another reason, io_error with the system's. On the
// worker's executor, where the inbox is watched: the call names no session,
// so the dispatch touches none of the network thread's state, and the run's
// steps and the answer stay on this thread. `sequence()` gives the marker's
// number.
void take_inbox(services::Gateway& gw, const std::string& agents, const std::string& name,
                std::function<std::uint64_t()> sequence);

}  // namespace gateway
