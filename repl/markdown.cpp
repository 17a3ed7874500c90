#include "repl/markdown.hpp"

#include "repl/format.hpp"

#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace repl {

namespace {

bool is_clock(std::string_view s) {
  return s.size() == 8 && std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::isdigit(static_cast<unsigned char>(s[1])) && s[2] == ':' &&
         std::isdigit(static_cast<unsigned char>(s[3])) && std::isdigit(static_cast<unsigned char>(s[4])) &&
         s[5] == ':' && std::isdigit(static_cast<unsigned char>(s[6])) &&
         std::isdigit(static_cast<unsigned char>(s[7]));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Whether `line` closes a fence opened with `n` of `c`; a fence in a quote
// or a list item closes behind the container's "> " or indentation.
bool closes(std::string_view line, char c, std::size_t n) {
  while (!line.empty() && (line.front() == '>' || line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  line = trim(line);
  return line.size() >= n && std::all_of(line.begin(), line.end(), [c](char x) { return x == c; });
}

// The last line of a code block. cmark-gfm reports a fence its container
// ended (a "> ```" quote followed by an unquoted line) as ending on the line
// that ended the container; no block ends after any of its containers.
int end_line(cmark_node* node) {
  int end = cmark_node_get_end_line(node);
  for (cmark_node* p = cmark_node_parent(node); p && cmark_node_get_type(p) != CMARK_NODE_DOCUMENT;
       p = cmark_node_parent(p))
    end = std::min(end, cmark_node_get_end_line(p));
  return end;
}

// cmark-gfm 0.29.0.gfm.6 takes time quadratic in some runs of brackets
// (240 KiB of "![[]()" held the worker thread 47 s). Where blocks start and
// end never depends on a bracket, so fences() hands cmark the text with each
// '[' and ']' replaced by a control byte the text does not hold (cmark reads
// it as a plain character: no link, no image is ever looked for), and puts
// the brackets back in what it takes from the fences.
struct Unbracketed {
  std::string text;
  char open = '\x01', close = '\x02';
  explicit Unbracketed(std::string_view in) : text(in) {
    bool seen[256] = {};
    for (unsigned char c : text) seen[c] = true;
    // Two bytes absent from the text; with every candidate present (a text
    // made to defeat this), 1 and 2 in a fence come back as brackets.
    std::vector<char> spare;
    for (int c = 1; c < 32 && spare.size() < 2; ++c)
      if ((c < '\t' || c > '\r') && !seen[c]) spare.push_back(static_cast<char>(c));  // never cmark's spaces
    if (spare.size() == 2) open = spare[0], close = spare[1];
    for (char& c : text) c = c == '[' ? open : c == ']' ? close : c;
  }
  std::string restore(std::string s) const {
    for (char& c : s) c = c == open ? '[' : c == close ? ']' : c;
    return s;
  }
};

}  // namespace

std::optional<Header> parse_header(std::string_view line) {
  line = trim(line);
  if (line.substr(0, 1) == ">") line = trim(line.substr(1));
  if (line.substr(0, 2) != "**") return std::nullopt;
  const std::size_t close = line.find("**", 2);
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  Header h;
  h.from = std::string(line.substr(2, close - 2));
  std::string_view rest = line.substr(close + 2);
  if (rest.substr(0, 4) != " to ") return std::nullopt;
  rest.remove_prefix(4);
  const std::size_t at = rest.find(" at ");
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  h.to = std::string(rest.substr(0, at));
  rest.remove_prefix(at + 4);
  if (rest.size() < 8 || !is_clock(rest.substr(0, 8))) return std::nullopt;
  h.clock = std::string(rest.substr(0, 8));
  rest = trim(rest.substr(8));
  if (!rest.empty()) {
    if (!(rest.front() == '(' && rest.back() == ')')) return std::nullopt;
    h.suffix = std::string(rest.substr(1, rest.size() - 2));
  }
  if (h.to.find(' ') != std::string::npos) return std::nullopt;
  return h;
}

bool runnable(std::string_view lang) {
  std::string l;
  for (char c : lang) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l.empty() || l == "js" || l == "javascript";
}

bool Fence::runs() const { return runnable(lang); }

std::vector<Fence> fences(std::string_view text, const Lines& lines) {
  std::vector<Fence> out;
  const Unbracketed plain(text);
  std::unique_ptr<cmark_node, void (*)(cmark_node*)> doc(
      cmark_parse_document(plain.text.data(), plain.text.size(), CMARK_OPT_DEFAULT), cmark_node_free);
  std::unique_ptr<cmark_iter, void (*)(cmark_iter*)> it(cmark_iter_new(doc.get()), cmark_iter_free);
  for (cmark_event_type ev; (ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE;) {
    cmark_node* node = cmark_iter_get_node(it.get());
    if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK) continue;
    int length = 0, offset = 0;
    char fence_char = 0;
    if (!cmark_node_get_fenced(node, &length, &offset, &fence_char)) continue;  // indented code
    const int start = cmark_node_get_start_line(node), end = end_line(node);
    if (start < 1 || end < start || static_cast<std::size_t>(start) > lines.size()) continue;
    Fence f;
    f.first = static_cast<std::size_t>(start - 1);
    f.last = std::min(static_cast<std::size_t>(end - 1), lines.size() - 1);
    f.marker = std::string(static_cast<std::size_t>(std::max(length, 3)), fence_char);
    f.closed = f.last > f.first && closes(lines[f.last], fence_char, static_cast<std::size_t>(length));
    const std::string_view info = trim(cmark_node_get_fence_info(node) ? cmark_node_get_fence_info(node) : "");
    f.lang = plain.restore(std::string(info.substr(0, info.find_first_of(" \t"))));
    f.code = plain.restore(cmark_node_get_literal(node) ? cmark_node_get_literal(node) : "");
    out.push_back(std::move(f));
  }
  return out;
}

Scan scan_requests(std::string_view text) {
  const Lines lines = split_lines(text);
  Scan scan;
  // The runnable blocks, and which lines the fences cover.
  std::vector<CodeBlock> blocks;
  std::vector<bool> in_fence(lines.size(), false);
  for (Fence& f : fences(text, lines)) {
    for (std::size_t i = f.first; i <= f.last; ++i) in_fence[i] = true;
    // An unclosed fence runs to the end of the text: a draft.
    if (!f.closed) {
      scan.draft = true;
      continue;
    }
    if (f.runs()) blocks.push_back(CodeBlock{f.first, f.last, std::move(f.lang), std::move(f.code)});
  }
  if (scan.draft) return scan;

  // Requests: each header outside a fence starts one; text before the
  // first header is a request without one.
  Request current;
  auto close_request = [&](std::size_t end) {
    current.end = end;
    if (!current.blocks.empty()) scan.requests.push_back(std::move(current));
    current = Request{};
  };
  std::size_t next_block = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!in_fence[i]) {
      if (auto h = parse_header(lines[i])) {
        close_request(i);
        current.first = i;
        current.header_line = i;
        current.header = std::move(h);
        continue;
      }
    }
    if (next_block < blocks.size() && blocks[next_block].first == i) current.blocks.push_back(blocks[next_block++]);
  }
  close_request(lines.size());
  return scan;
}

}  // namespace repl
