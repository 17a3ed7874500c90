// editgate's commit messages as text: written in one shape and read back
// only from that shape. A message is a summary line, an optional body and,
// as its last paragraph, the trailer block, which editgate alone writes.
// What another party supplied (a page's url, an agent's path, a
// teammate's summary) can only ever be the summary or body text: it is
// made one line where it must be, a body line that could pass for a
// trailer or for git's patch divider is indented, and the reader takes
// trailers from nowhere but the last paragraph.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace editgit {

using Trailers = std::vector<std::pair<std::string, std::string>>;

// `text` on one line: line breaks and other control characters become spaces.
std::string message_line(std::string_view text);

// "summary\n\nbody\n\nKey: value\n...". The summary and every trailer value
// are made one line; body lines that read as "Key: value" or start with
// "---" get a leading space, so no tool takes them for trailers.
std::string compose_message(std::string_view summary, std::string_view body, const Trailers& trailers);

// The trailers of `message`: its last paragraph, when that is not the
// summary's and every line of it is "Key: value" (Key of letters, digits
// and hyphens). Anything else has none: a "---" line, a continuation line
// or prose in that paragraph means the block is not one editgate wrote.
Trailers read_trailers(std::string_view message);

}  // namespace editgit
