// What an agent or editor appended to a chat log, read as requests: the
// text the gateway knew against the text saved now. Pure (no files, no
// pages), so it can be tested and fuzzed on its own; Repl::take_requests
// accepts what it finds.
#pragma once

#include "repl/format.hpp"
#include "repl/markdown.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

// Whether `text` ends with `lines` as whole lines (trailing newlines aside).
bool ends_with_lines(std::string_view text, const Lines& lines);

struct Appended {
  bool edited_above = false;  // the log changed above its end: nothing there runs
  Lines tail;                 // the appended lines, without the footer and trailing blank lines
  std::vector<std::size_t> origin;  // each tail line's line number (0-based) in `found`
  Lines old;                  // the lines an accepting edit replaces: some context and the tail
  Lines before;               // the context that stays above the tail (the footer dropped)
  bool had_footer = false;    // the footer was above the tail or in it
  Scan scan;                  // the tail's requests (nothing when tail is empty)
};

// `seen` is the log as the gateway knew it, `found` as it is now; `draft` is
// an unfinished request the footer was moved below, which may be finished
// in place and then counts as appended.
Appended read_appended(const std::string& seen, const std::string& found, const Lines& draft);

struct AcceptedRequest {
  std::string agent;              // the header's name, else the one given
  std::vector<Lines> segments;    // per block: its lines from the request's start, a header written in when missing
  std::vector<std::string> codes;  // the blocks' code, run in order
};

struct Accepted {
  std::vector<AcceptedRequest> requests;
  std::size_t refused = 0;  // requests left unanswered, each with its note under it
  Lines normal;  // `before` and the tail with the missing headers and the notes written in; empty when none
};

// A request that may not run gets the note this returns (nothing: it runs).
using RefusalNote = std::function<std::optional<std::string>(const Request&)>;

// The requests of an appended text (not a draft) that run: text that looks
// like a reply is not one. `header` writes the header of a request that has
// none, for its agent; `refuse` (when given) keeps a request from running.
Accepted accept_requests(const Appended& a, const std::string& agent,
                         const std::function<std::string(const std::string& agent)>& header,
                         const RefusalNote& refuse = {});

}  // namespace repl
