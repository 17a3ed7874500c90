#include "repl/log_render.hpp"
#include "repl/log_rendering.hpp"
#include "repl/read_at.hpp"

#include "editproto/unicode.hpp"
#include "repl/format.hpp"
#include "repl/markdown.hpp"
#include "repl/page_state.hpp"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <boost/json.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

namespace repl {

namespace json = boost::json;

namespace {

using editproto::unicode::to_valid_utf8;

// How much of the line at a read's end is looked at to tell whether an
// entry starts there: more than any header the gateway writes.
constexpr std::size_t peek_bytes = 1024;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "> **page** background at 12:00:00", with or without "> ".
std::optional<LogEntry> background_entry(std::string_view line) {
  line = trim(line);
  if (line.starts_with(">")) line = trim(line.substr(1));
  if (!line.starts_with("**")) return std::nullopt;
  const std::size_t close = line.find("**", 2);
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  std::string_view rest = line.substr(close + 2);
  if (!rest.starts_with(" background at ")) return std::nullopt;
  LogEntry e;
  e.kind = EntryKind::event;
  e.from = to_valid_utf8(line.substr(2, close - 2));
  e.clock = to_valid_utf8(trim(rest.substr(15)).substr(0, 8));
  return e;
}

// The entry a line starts, its text still empty; nullopt for any other line.
std::optional<LogEntry> entry_of(std::string_view line) {
  if (auto h = parse_header(line)) {
    LogEntry e;
    e.kind = h->suffix.empty() ? EntryKind::request
             : h->suffix.find("**ERROR**") != std::string::npos ? EntryKind::error
                                                                 : EntryKind::reply;
    e.from = to_valid_utf8(h->from);
    e.to = to_valid_utf8(h->to);
    e.clock = std::move(h->clock);
    e.suffix = to_valid_utf8(h->suffix);
    return e;
  }
  if (auto e = background_entry(line)) return e;
  if (trim(line) == footer) return LogEntry{};  // a note: the footer and what follows it
  return std::nullopt;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// A header with no suffix over the "executing" placeholder is the reply of
// a job still running, not a request.
void settle_kind(LogEntry& e) {
  if (e.kind != EntryKind::request) return;
  const std::size_t at = e.text.find_first_not_of(" \t\r\n");
  if (at != std::string::npos && std::string_view(e.text).substr(at).starts_with("executing")) e.kind = EntryKind::reply;
}

// Up to `n` bytes from `at`; fewer at the end of the file.
Result<std::string> read_at(int fd, std::uint64_t at, std::size_t n) { return repl::read_at(fd, at, n, "the chat log"); }

// Where the text of a window that starts inside an entry begins: at its
// first entry (`found`), else (all of it inside one entry) at its start,
// past any UTF-8 continuation bytes there. `after_newline`: the byte
// before the window is a line break.
std::size_t resync(std::string_view w, bool after_newline, bool& found) {
  std::size_t p = 0;
  if (!after_newline) {
    const std::size_t nl = w.find('\n');
    p = nl == std::string_view::npos ? w.size() : nl + 1;
  }
  while (p < w.size()) {
    const std::size_t nl = w.find('\n', p);
    if (starts_entry(w.substr(p, nl == std::string_view::npos ? std::string_view::npos : nl - p))) {
      found = true;
      return p;
    }
    p = nl == std::string_view::npos ? w.size() : nl + 1;
  }
  found = false;
  std::size_t skip = 0;
  while (skip < 3 && skip + 1 < w.size() && (static_cast<unsigned char>(w[skip]) & 0xC0) == 0x80) ++skip;
  return skip;
}

// cmark-gfm's table extension takes time quadratic in a row's cells (a
// 64 KiB header row of "|a" takes 4 s): a text with a line of more pipes
// than any table a person reads is rendered without it.
constexpr std::size_t table_pipes_max = 256;

bool wide_row(std::string_view text) {
  std::size_t pipes = 0;
  for (char c : text) {
    if (c == '\n') pipes = 0;
    else if (c == '|' && ++pipes > table_pipes_max) return true;
  }
  return false;
}

void attach_extensions(cmark_parser* parser, bool tables) {
  static std::once_flag registered;
  std::call_once(registered, [] { cmark_gfm_core_extensions_ensure_registered(); });
  for (const char* name : {"table", "strikethrough", "autolink"})
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name); ext && (tables || name != std::string_view("table")))
      cmark_parser_attach_syntax_extension(parser, ext);
}

// Text as HTML that shows it as it is.
std::string plain_html(std::string_view text) {
  std::string out = "<pre class=\"log-plain\">";
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out + "</pre>\n";
}

}  // namespace

std::string_view to_string(EntryKind kind) {
  switch (kind) {
    case EntryKind::request: return "request";
    case EntryKind::reply: return "reply";
    case EntryKind::error: return "error";
    case EntryKind::event: return "event";
    case EntryKind::note: break;
  }
  return "note";
}

bool starts_entry(std::string_view line) { return entry_of(line).has_value(); }

std::vector<LogEntry> split_entries(std::string_view text, std::uint64_t offset) {
  const Lines lines = split_lines(text);
  std::vector<bool> in_fence(lines.size(), false);
  for (const Fence& f : fences(text, lines))
    for (std::size_t i = f.first; i <= f.last && i < lines.size(); ++i) in_fence[i] = true;

  std::vector<LogEntry> out;
  LogEntry current;       // text before the first header: a note
  std::size_t body = 0;   // where the current entry's text starts in `text`
  std::size_t start = 0;  // where it starts, its header included
  auto close = [&](std::size_t end) {
    current.text = std::string(text.substr(body, end - body));
    current.offset = offset + start;
    settle_kind(current);
    if (current.kind != EntryKind::note || !blank(current.text)) out.push_back(std::move(current));
  };
  std::size_t pos = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t line_start = pos;
    pos = std::min(text.size(), pos + lines[i].size() + 1);
    if (in_fence[i]) continue;
    std::optional<LogEntry> e = entry_of(lines[i]);
    if (!e) continue;
    close(line_start);
    current = std::move(*e);
    start = line_start;
    body = current.kind == EntryKind::note ? line_start : pos;  // the footer is the note's own text
  }
  close(text.size());
  return out;
}

Result<LogRead> read_log_back(int fd, std::uint64_t end, std::uint64_t size, const LogLimits& limits) {
  LogRead out;
  if (end == 0) return out;
  const std::uint64_t window = std::max<std::size_t>(limits.window_bytes, 16);
  const std::uint64_t start = end > window ? end - window : 0;
  const std::uint64_t from = start > 0 ? start - 1 : 0;  // one byte more: is `start` a line's start?
  auto got = read_at(fd, from, static_cast<std::size_t>(end - from));
  if (!got) return got.error();
  if (got->size() != end - from) return Failure{Error::io, "the chat log shrank while it was read"};
  const std::string_view w = std::string_view(*got).substr(static_cast<std::size_t>(start - from));

  std::size_t at = 0;
  bool found = true;
  if (start > 0) at = resync(w, (*got)[0] == '\n', found);
  if (found) {
    out.entries = split_entries(w.substr(at), start + at);
  } else {
    // One entry bigger than the window: its end, cut, rather than nothing.
    LogEntry e;
    e.offset = start + at;
    e.text = std::string(w.substr(at));
    e.cut_head = true;
    out.entries.push_back(std::move(e));
  }
  if (start + at > 0) out.next_before = start + at;

  // The read ended inside an entry when no entry starts at `end`.
  if (end < size && !out.entries.empty()) {
    auto peek = read_at(fd, end, peek_bytes);
    if (!peek) return peek.error();
    if (!starts_entry(std::string_view(*peek).substr(0, peek->find('\n')))) out.entries.back().cut_tail = true;
  }
  if (out.entries.size() > limits.entries) {
    out.entries.erase(out.entries.begin(),
                      out.entries.begin() + static_cast<std::ptrdiff_t>(out.entries.size() - limits.entries));
    out.next_before = out.entries.front().offset;
  }
  return out;
}

std::string render_markdown_safe(std::string_view markdown) {
  const std::string text = to_valid_utf8(markdown);
  std::unique_ptr<cmark_parser, void (*)(cmark_parser*)> parser(cmark_parser_new(CMARK_OPT_DEFAULT),
                                                                cmark_parser_free);
  attach_extensions(parser.get(), !wide_row(text));
  cmark_parser_feed(parser.get(), text.data(), text.size());
  std::unique_ptr<cmark_node, void (*)(cmark_node*)> doc(cmark_parser_finish(parser.get()), cmark_node_free);
  // CMARK_OPT_DEFAULT has no CMARK_OPT_UNSAFE: raw HTML and unsafe links are left out.
  char* html = cmark_render_html(doc.get(), CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(parser.get()));
  std::string out = html ? html : "";
  cmark_get_default_mem_allocator()->free(html);
  return to_valid_utf8(out);
}

json::object entry_json(const LogEntry& e, const std::optional<std::string>& rendered) {
  std::string html;
  if (e.cut_head) html += "<p class=\"log-cut\">… the start of this entry is above: page back for it</p>\n";
  html += rendered ? *rendered : plain_html(to_valid_utf8(e.text));
  if (e.cut_tail) html += "<p class=\"log-cut\">… this entry goes on below</p>\n";
  json::object o{{"offset", e.offset}, {"kind", to_string(e.kind)}, {"from", e.from},
                 {"to", e.to},         {"clock", e.clock},          {"suffix", e.suffix},
                 {"html", std::move(html)}, {"rendered", rendered.has_value()}};
  if (e.cut_head || e.cut_tail) o["cut"] = e.cut_head && e.cut_tail ? "both" : e.cut_head ? "head" : "tail";
  return o;
}

json::object entry_json(const LogEntry& e) { return entry_json(e, render_markdown_safe(e.text)); }

}  // namespace repl

namespace repl {

Result<LogTail> Repl::log_tail(const std::string& page, std::optional<std::uint64_t> before,
                                    std::size_t window_bytes) {
  auto found = find(page);
  if (!found) return found.error();
  const Page& p = **found;
  // Through the workspace, as every read of a page's files: a log that is a
  // symlink never leads out of it.
  auto opened = ws_.open_read(p.log->path());
  if (!opened) return Failure{Error::io, "cannot read " + p.log->path() + ": " + opened.error().detail};
  const std::uint64_t size = opened->fd ? static_cast<std::uint64_t>(opened->stamp.size) : 0;
  if (before && *before > size)
    return Failure{Error::bad_request, "before " + std::to_string(*before) + " is past the end of " + p.log->path() +
                                           " (" + std::to_string(size) + " bytes); page from next_before"};
  LogLimits limits;
  limits.window_bytes = std::min(window_bytes, log_window_max);
  LogRead read;
  if (opened->fd) {
    auto got = read_log_back(opened->fd.get(), before.value_or(size), size, limits);
    if (!got) return got.error();
    read = std::move(*got);
  }
  return LogTail{p.stem, p.log->path(), size, std::move(read)};
}

}  // namespace repl
