// The inbox of agents that only write files. An agent drops
// inbox/<name>.md in the agents' folder (.git/editgate/, where no commit can
// put a file: services/places.hpp), a message of edit blocks (an LLM's
// answer); the gateway applies it as `editgate apply` would, on the worker
// thread with the other edits, and answers in outbox/ beside it:
//   <name>.json              the results, the JSON of `apply --format json`,
//                            with `summary`, `status` and `text` (apply's text output)
//   <name>.md                the message, moved out of the inbox
//   <name>.completed.marker  a sequence number; written last
// The old answers to a name are removed before its new message is read, and
// the message leaves the inbox before the marker is written, so "inbox file
// gone and marker there" always means this message's answer is complete.
#pragma once

#include "services/worker.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace gateway {

// Applies inbox/<name> (a file name ending in .md) under `agents`. A
// symlink there is refused as "not a file".
// `sequence()` gives the marker's number.
void apply_inbox(services::Worker& worker, const std::string& agents, const std::string& name,
                 const std::function<std::uint64_t()>& sequence);

}  // namespace gateway
