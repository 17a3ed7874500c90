// What a page sends is data. Every string and number a page supplies (its
// hello, and every message after it) passes through here once, where it
// enters the REPL (Repl::connect, Repl::from_page), before anything uses
// it: strings become valid UTF-8 and bounded; the ones that land on a line
// of their own (a url, a title, a name, an error's name) are made one line
// with their control characters written as escapes; numbers that say a
// time or a duration are finite and in range, or absent. The renderers
// escape again for where the text lands (fences, Markdown, commit messages).
#pragma once

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace repl {

// Bounds, in bytes, of what a page supplies.
namespace page_bounds {
inline constexpr std::size_t url = 2000;
inline constexpr std::size_t title = 500;
inline constexpr std::size_t name = 200;
inline constexpr std::size_t word = 100;      // a type, a source, a status, an error's name
inline constexpr std::size_t line = 2000;     // an interrupt's message, a prompt, a completion
inline constexpr std::size_t text = 64 * 1024;  // an event's text, an error's message or stack
inline constexpr std::size_t items = 1000;    // completions
inline constexpr std::size_t bindings = 200;  // globals a bindings answer lists
inline constexpr std::size_t binding_bytes = 64 * 1024;  // one binding's tagged value
// Event times: from the epoch to 2100-01-01. Beyond that the page's clock
// is wrong (or hostile), and the gateway's receive time is used.
inline constexpr double latest_ms = 4102444800000.0;
}  // namespace page_bounds

// One line: valid UTF-8; C0 and C1 controls, DEL, U+2028/U+2029 and the
// bidirectional overrides written as escapes (`\x0a`, `\u2028`), so no
// line break, terminal sequence or reordering survives; cut on a character
// boundary to at most `max_bytes`, ending in "…" when cut.
std::string page_line(std::string_view raw, std::size_t max_bytes);

// Text that is written fenced (console output, a stack): valid UTF-8, cut
// on a character boundary to at most `max_bytes`. Its lines are made safe
// for the fence by clean_page_text where it is written.
std::string page_text(std::string_view raw, std::size_t max_bytes);

// A page's wall-clock milliseconds, when finite and within the bounds.
std::optional<std::int64_t> page_time(const boost::json::value& v);

// A page's message with the fields the REPL reads checked and bounded:
// `type`, `source`, `lang`, `status` one short line; `job` and `start` (where
// completions start) non-negative integers; `ts` page_time(); `duration_ms` finite and not negative; `ok` and
// `open` (a dialog's) bools; `end` (an event's line end) "\n" or ""; `text` and `error`'s `message` and `stack`
// page_text(); `error`'s `name`, `message` (interrupted, a dialog's), `prompt`, `default` (a prompt dialog's) and
// `items` one line each; a dialog's `kind` and `answer` a short line. A
// field that fails its check is left out, as if the page had not sent it.
// `value` (tagged JSON, written inside a JSON fence) is kept as it is.
// `info` (an answer to info or docs) keeps `found` and `native` (bools),
// `kind` (a word), `signature`, `constructor`, `description` (a line each),
// `source_head` (text, a line's bound) and `source_length` (a non-negative
// integer).
boost::json::object clean_page_message(boost::json::object raw);

}  // namespace repl
