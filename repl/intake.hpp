// What an agent or editor appended to a chat log, read as requests: the
// text the gateway knew against the text saved now. Pure (no files, no
// pages), so it can be tested and fuzzed on its own; Repl::take_requests
// (log_requests.cpp) accepts what it finds.
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
  // Per block: its lines from the request's start, with the header written
  // in when missing and naming the log's page when it named another.
  std::vector<Lines> segments;
  std::vector<std::string> codes;  // the blocks' code, run in order
};

struct Accepted {
  std::vector<AcceptedRequest> requests;
  std::size_t refused = 0;  // requests left unanswered, each with its note under it
  std::size_t written = 0;  // headers written in where a request had none
  std::size_t renamed = 0;  // headers rewritten to name the log's page
  Lines normal;  // `before` and the tail with the missing headers and the notes written in; empty when none
};

// A request that may not run gets the note this returns (nothing: it runs).
using RefusalNote = std::function<std::optional<std::string>(const Request&)>;

// Writes a request header for `agent` at `clock` ("" for now), to the log's page.
using HeaderWriter = std::function<std::string(const std::string& agent, const std::string& clock)>;

// The requests of an appended text (not a draft) that run: text that looks
// like a reply is not one. A log is one page's, so whatever page a
// request's header names, it runs in `page`, and its header is rewritten to
// say so (keeping the agent and the time); `header` writes it, and the
// header of a request that has none. `refuse` (when given) keeps a request
// from running.
Accepted accept_requests(const Appended& a, const std::string& agent, const std::string& page,
                         const HeaderWriter& header, const RefusalNote& refuse = {});

// Headers in the appended text that start no request: one with a reply's
// suffix or a background header (only the gateway writes those), or a
// request header with no runnable block under it. Lines of `a.tail`.
struct Unrun {
  std::size_t line = 0;
  std::string from;  // the header's name
  bool reply = false;  // a reply or background header; else a request's
};
std::vector<Unrun> unrun_headers(const Appended& a);

// The gateway's notes on them: at most one line per kind.
Lines unrun_notes(const std::vector<Unrun>& unrun);

}  // namespace repl
