// The parameters of an edit run read from the query of POST /v1/edits.
#pragma once

#include "services/edit_run.hpp"
#include "services/target.hpp"

#include <string>
#include <vector>

namespace ops {

// dry_run (true/false/1/0, or bare), agent, session, context (repeatable),
// fuzz (whitespace). Any other name is Error::bad_request naming each of
// them (unknown_edit_params), so a typo never passes silently.
services::Result<services::EditParams> edit_params(const services::Target& target);
// The names in the query /v1/edits does not take, each once, in order.
std::vector<std::string> unknown_edit_params(const services::Target& target);

}  // namespace ops
