// Requests in the text an agent appended to a chat log, found with
// cmark-gfm: header lines outside fences, and the fenced blocks after them.
// Only the appended text is read, so nothing the gateway wrote and nothing
// inside a fence can pass for a request.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

struct Header {
  std::string from;   // "agent" in "> **agent** to page at 12:00:00"
  std::string to;
  std::string clock;  // "12:00:00"
  std::string suffix; // "17ms" in "(17ms)": a reply's
};

// "> **a** to b at 12:00:00", with or without "> ", with an optional
// "(...)" suffix (a reply); nullopt for any other line.
std::optional<Header> parse_header(std::string_view line);

struct CodeBlock {
  std::size_t first = 0;  // 0-based line of the opening fence
  std::size_t last = 0;   // of the closing fence
  std::string lang;       // first word of the info string
  std::string code;
};

struct Request {
  std::optional<std::size_t> header_line;  // 0-based; nullopt: none written
  std::optional<Header> header;
  std::vector<CodeBlock> blocks;           // the runnable ones, in order
  std::size_t first = 0;                   // first line of the request's text
  std::size_t end = 0;                     // one past its last line
};

// A fenced block as cmark-gfm reads it (indented code is not one).
struct Fence {
  std::size_t first = 0, last = 0;  // 0-based lines of its opening fence and its last line
  std::string marker;               // "```": what closes it
  std::string lang;                 // first word of the info string
  std::string code;
  bool closed = false;              // else it runs to the end of the text
  bool runs() const;                // its language is one a page runs
};
// `lines` is split_lines(text).
std::vector<Fence> fences(std::string_view text, const std::vector<std::string>& lines);

struct Scan {
  std::vector<Request> requests;  // those with at least one runnable block
  bool draft = false;             // a fence is still open: nothing is dispatched
};

// Whether a fenced block's info string names code a page runs: js,
// javascript (any case) or nothing.
bool runnable(std::string_view lang);

Scan scan_requests(std::string_view text);

}  // namespace repl
