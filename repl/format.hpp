// The text of a chat log, as editgate writes it: headers, the footer, the
// executing placeholder, fenced blocks and background events. Page text is
// untrusted: it is fenced so it cannot close its fence, and lines that could
// pass for a header are escaped.
#pragma once

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

using Lines = std::vector<std::string>;

// The single managed footer line: the append anchor for requests.
inline constexpr std::string_view footer = "> Write code in a fenced JS block below to execute against this page.";

// "12:04:05" in local time.
std::string clock_text(std::chrono::system_clock::time_point t);
// The same for milliseconds since the epoch, any of them (no conversion
// that could overflow); "??:??:??" where the C library cannot say.
std::string clock_text_ms(std::int64_t epoch_ms);
// "17ms" under 2 s, else "2.3s".
std::string duration_text(double ms);

// A page or agent name as it may appear in a header: no '*', no line breaks.
std::string header_name(std::string_view name);

// "> **agent** to page at 12:04:05"
std::string request_header(std::string_view agent, std::string_view page, std::string_view clock);
// "> **page** to agent at 12:04:05 (17ms)" / "(**ERROR** after 16ms)" /
// "(**ERROR** timeout after 60s)" / "executing" form when `duration` is empty.
std::string reply_header(std::string_view page, std::string_view agent, std::string_view clock,
                         std::string_view suffix);
std::string placeholder(long seconds);  // "executing (5s)"

// The gateway's note under a request that did not run because it came with
// git (`why` says how), and whether `line` is one, for `page`.
std::string not_run_note(std::string_view page, std::string_view why);
bool is_not_run_note(std::string_view line, std::string_view page);

// The title, the instructive header and the footer of a new log.
Lines new_log(std::string_view page, std::string_view url, std::string_view events_file);

// One line of page text (page_line's) as it is written inside a line of
// Markdown: every ASCII punctuation character that could start an inline
// construct (emphasis, code, a link, an autolink, raw HTML, an entity, a
// table cell) is backslash-escaped, so the text shows as itself.
std::string markdown_inline(std::string_view line);

// Page text made safe for a fence: valid UTF-8, LF line ends, no control
// characters but tab, and every line that could pass for a header, a footer
// or an edit marker escaped with a leading backslash.
std::string clean_page_text(std::string_view text);

// A fenced block: the fence is longer than any backtick run inside.
Lines fenced(std::string_view info, std::string_view text);

// A value as it is written in a JSON block: compact when short, else
// indented two spaces.
std::string pretty_json(const boost::json::value& v);

struct Event {
  std::string source;  // console.log, window.onerror, ...
  std::string lang;    // Text, JSON, Error
  std::string text;
  std::int64_t ts = 0;  // ms since the epoch
};

// The background blocks after a result: at most 10, the first 2, a line
// saying how many were omitted, the last 8.
Lines render_events(const std::vector<Event>& events);

// Lines of `text` (LF separated; a final LF ends the last line).
Lines split_lines(std::string_view text);

}  // namespace repl
