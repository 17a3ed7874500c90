// Private to lint (lint*.cpp): the lines of a chat log as lint reads them.
// A header is read in every form a log may hold (the gateway's, the
// single file's, one without a time), and a line that starts like one but
// does not parse says why; beside it the lines lint passes over and the page
// names it compares.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl::lint {

inline constexpr std::size_t npos = std::string_view::npos;

std::string_view trim(std::string_view s);
inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Seconds of the day of a clock clock_problem() accepted ("12:00:00").
int seconds_of(std::string_view clock);
// 0-based lines as a message lists them: "3, 7, 12".
std::string lines_list(const std::vector<std::size_t>& lines);

// "index-7-zen-1a2b.md": a page's name, a dash, an instance id, ".md".
bool names_instance(std::string_view file);
// A page's short name ("12-dove") names its instance ("12-dove-1631-13").
bool same_page(std::string_view a, std::string_view b);

struct Head {
  bool background = false;  // "> **page** background at HH:MM:SS"
  std::string from, to, clock, suffix;
  std::optional<int> time;  // seconds of the day; nullopt: no time written
  bool late_form = false;   // the single-file format's "**page** to agent(HH:MM:SS)"
  bool bare = false;        // no time: a header only when a block or the placeholder follows it
};

// A line that starts like a header either parses or says why not; any
// other line is neither.
struct HeadParse {
  std::optional<Head> head;
  std::string malformed;
};
HeadParse read_header(std::string_view raw);

// The "executing" placeholder the gateway writes under a running job's reply.
bool is_placeholder(std::string_view line);
// "... (3 more background events omitted) ..."
bool is_omitted(std::string_view line);

}  // namespace repl::lint
