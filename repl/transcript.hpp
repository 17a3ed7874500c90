// The transcript: the blocks the REPL writes into a chat log beyond the
// line-level pieces of format.hpp: a reply (its header, the result or the
// error, the job's console output), a late reply, a job marked interrupted,
// the note on output that was not kept, and the lines of a page's events
// log. Pure: text in, lines out; a page's PageLog (page_log.hpp) puts them
// into the files.
#pragma once

#include "repl/format.hpp"
#include "repl/markdown.hpp"
#include "repl/repl.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

// Where output past Options::max_events_kept went: nowhere, and the log says so.
std::string dropped_note(std::size_t dropped, const Options& bounds);

// A reply block: its header line, its body, then the job's console output
// and, when some was not kept, the note that says so.
Lines reply_block(std::string header, Lines body, const std::vector<Event>& events, std::size_t dropped,
                  const Options& bounds);

// A successful result's value as the log shows it: pretty tagged JSON
// (`{"$undefined":true}` when the page sent none).
std::string result_text(const boost::json::object& result);
// A failed result's Error block: the stack, with "Name: message" in front
// when the stack does not hold the message.
Lines error_block(const boost::json::object& result);
// A value too long for the log, kept in `file` (a path from the workspace
// root): the line pointing there and its first 1000 bytes, cut on a
// character boundary.
Lines archived_value(const std::string& text, const std::string& file);

// A late reply's header: `after_ms` after its request.
std::string late_header(std::string_view page, std::string_view agent, std::string_view clock, bool ok,
                        std::int64_t after_ms);

// What replaces a job a stopped gateway left executing: its announcement
// (`announced`, the header without a duration) and placeholder become a
// reply saying so, found at `now`.
Lines interrupted_reply(const Header& announced, std::string_view now);
// Whether `line` is the executing placeholder ("executing (12s)").
bool is_placeholder(std::string_view line);

// The lines a page's events log gets for `events`: "12:04:05.123 source: text",
// continuation lines indented.
std::string events_log_text(const std::vector<Event>& events);

}  // namespace repl
