// Page names as they appear in file names and headers (seed 001):
// "Index - 7 Zen" -> "index-7-zen", and the short id that tells apart two
// instances with one name.
#pragma once

#include "git/repository.hpp"

#include <string>
#include <string_view>

namespace repl {

// Lowercase ASCII letters and digits, one hyphen between words, at most 40
// characters; "page" when nothing is left.
std::string sanitize_name(std::string_view name);

// An agent as a commit author: its name on one line, and a made-up address
// of the characters an address may hold ("claude@editgate.invalid").
editgit::Identity agent_identity(std::string_view agent);

// `digits` random hex digits.
std::string random_hex(std::size_t digits);

// Whether `id` could be an instance id the gateway handed out.
bool valid_id(std::string_view id);

}  // namespace repl
