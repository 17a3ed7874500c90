// A chat log read back for people: its tail first, a window of bytes at a
// time, split into entries (a request, a reply, an error, a background
// event, other text as a note), each rendered to HTML by cmark-gfm in its
// safe mode. A log grows to tens of MiB, so it is never read whole: a read
// takes the window that ends at a cursor and starts at the first entry
// inside it, so no entry is cut, except one bigger than the window, which
// comes cut and says so. Everything in a log may be a page's text: the HTML
// holds no raw HTML, no unsafe link and only valid UTF-8.
#pragma once

#include "repl/error.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

enum class EntryKind { request, reply, error, event, note };
std::string_view to_string(EntryKind kind);

struct LogEntry {
  std::uint64_t offset = 0;  // where it starts in the file (its header line)
  EntryKind kind = EntryKind::note;
  std::string from, to, clock;  // its header's; "" for a note (and `to` for an event)
  std::string suffix;           // a reply's "(...)" without the parentheses: "17ms", "**ERROR** after 16ms"
  std::string text;             // its lines under the header (a note's: all of them), as the file holds them
  bool cut_head = false;        // it starts above the window: its header and first lines are not in `text`
  bool cut_tail = false;        // it goes on past the cursor the read ended at
};

// The largest window one read takes, whatever it is asked.
inline constexpr std::size_t log_window_max = 4u << 20;

struct LogLimits {
  std::size_t window_bytes = 256 * 1024;  // read from the file at most (and so rendered)
  std::size_t entries = 2000;             // in one read; older ones are left to the next page
};

struct LogRead {
  std::vector<LogEntry> entries;            // oldest first
  std::optional<std::uint64_t> next_before;  // where the older entries end; nullopt: none are left
};

// Whether a line starts an entry: a request's, a reply's or a background
// event's header, or the gateway's footer line (the note under the last reply).
bool starts_entry(std::string_view line);

// The entries of `text`, a part of a log that starts at file offset
// `offset` at the start of a line. Headers inside fenced blocks (as
// cmark-gfm reads the text) are text, never entries.
std::vector<LogEntry> split_entries(std::string_view text, std::uint64_t offset);

// The entries of the log open on `fd` (of `size` bytes) that end at or
// before byte `end` (the file's size, or an earlier read's next_before).
// At least one entry comes back while `end` > 0, however big, so paging
// always moves on.
Result<LogRead> read_log_back(int fd, std::uint64_t end, std::uint64_t size, const LogLimits& limits);

// Markdown as HTML, with cmark-gfm's tables (none in a text with a line
// of over 256 '|': the table extension is quadratic in a row's cells),
// strikethrough and autolinks:
// raw HTML is left out and links and images with an unsafe scheme
// (javascript:, vbscript:, file:, data: but images) lose their address.
// The text is made valid UTF-8 first; cmark-gfm turns NUL into U+FFFD.
std::string render_markdown_safe(std::string_view markdown);

// An entry as the log op replies it: {"offset", "kind", "from", "to",
// "clock", "suffix", "html", "rendered"}, with "cut": "head" | "tail" |
// "both" and a line in the HTML saying so when it is cut. `html` is its
// render_markdown_safe(); nullopt (not rendered): its text, escaped, in a
// <pre class="log-plain">, and "rendered": false.
boost::json::object entry_json(const LogEntry& e, const std::optional<std::string>& html);
// The entry rendered here, on the calling thread.
boost::json::object entry_json(const LogEntry& e);

}  // namespace repl
