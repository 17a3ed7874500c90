// Page names as they appear in file names and headers:
// "Index - 7 Zen" -> "index-7-zen", and the short id that tells apart two
// instances with one name.
#pragma once

#include "record/identity.hpp"

#include <string>
#include <string_view>

namespace repl {

// Lowercase ASCII letters and digits, one hyphen between words, at most 40
// characters; "page" when nothing is left.
std::string sanitize_name(std::string_view name);

// An agent as a commit author, as edit runs write it.
using record::agent_identity;
// The author of a page's own commits (its connect, replies, notes).
inline editgit::Identity page_identity(std::string_view stem) {
  return {std::string(stem), std::string(stem) + "@page.editgate.invalid"};
}

// A new instance id's length: 48 random bits. Ids are names, in log file
// names and in `editgate eval`; the secret beside each (PageKeys) is what
// lets a page take its instance back.
constexpr std::size_t id_digits = 12;

// Whether `id` could be an instance id the gateway handed out (4 to 16 hex
// digits: the logs of older gateways have 4).
bool valid_id(std::string_view id);

}  // namespace repl
