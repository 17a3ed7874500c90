// What a REPL commit's subject says of an exchange (repl/committer.hpp):
// "node-1: `40 + 2` → 42".
#pragma once

#include "repl/error.hpp"

#include <string>

namespace repl {

// A request's code: its first line, at most 48 characters, control
// characters escaped, in backquotes ("…" when there is more).
std::string code_headline(const std::string& code);

// A reply's outcome, from the final answer an agent gets: "→ 42",
// "→ undefined", the exception's name ("ReferenceError"), or the code it
// ended with ("timeout").
std::string outcome_headline(const Answer& done);

}  // namespace repl
