// Who a commit is by: an agent's name as a git author, the same for edit
// runs and for the REPL's requests.
#pragma once

#include "git/repository.hpp"

#include <string_view>

namespace record {

// The name as given (line breaks become spaces), at <name>@editgate.invalid
// with everything but [A-Za-z0-9._-] replaced by '-'.
editgit::Identity agent_identity(std::string_view agent);

}  // namespace record
