#include "repl/intake.hpp"

#include <algorithm>
#include <iterator>

namespace repl {

bool ends_with_lines(std::string_view text, const Lines& lines) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::string tail;
  for (std::size_t i = 0; i < lines.size(); ++i) tail += (i ? "\n" : "") + lines[i];  // leading blank lines count
  if (tail.empty() || text.size() < tail.size() || text.substr(text.size() - tail.size()) != tail) return false;
  return text.size() == tail.size() || text[text.size() - tail.size() - 1] == '\n';
}

Appended read_appended(const std::string& seen, const std::string& found, const Lines& draft) {
  Appended a;
  Lines known = split_lines(seen);
  const Lines fresh = split_lines(found);
  // A draft the footer was moved below may be finished where it is: it
  // counts as appended still.
  if (!draft.empty()) {
    Lines end = draft;
    for (const Lines& tail : {Lines{"", std::string(footer)}, Lines{}}) {
      Lines with = end;
      with.insert(with.end(), tail.begin(), tail.end());
      // ends_with_lines ignores the text's last line ends: so do the lines.
      while (!with.empty() && with.back().empty()) with.pop_back();
      if (!with.empty() && ends_with_lines(seen, with)) {
        while (!known.empty() && known.back().empty()) known.pop_back();
        known.resize(known.size() - std::min(known.size(), with.size()));
        break;
      }
    }
  }
  std::size_t common = 0;
  while (common < known.size() && common < fresh.size() && known[common] == fresh[common]) ++common;
  Lines known_rest(known.begin() + static_cast<std::ptrdiff_t>(common), known.end());
  while (!known_rest.empty() && known_rest.back().empty()) known_rest.pop_back();
  // Only text added at the end counts: where the footer was, or after it.
  const bool footer_gone = known_rest.size() == 1 && known_rest.front() == footer;
  if (!known_rest.empty() && !footer_gone) {
    a.edited_above = true;
    return a;
  }
  // Where the accepting edit starts: the footer above the new text (it
  // goes), or a few lines of context, so the edit's anchor is unique.
  std::size_t context = common >= 3 ? common - 3 : 0;
  bool drop_footer = false;
  if (!footer_gone) {
    std::size_t f = common;
    while (f > 0 && fresh[f - 1].empty()) --f;
    if (f > 0 && fresh[f - 1] == footer) {
      context = f - 1;
      drop_footer = true;
    }
  }
  // The appended text; a footer in it is the gateway's anchor, not the agent's.
  a.had_footer = footer_gone || drop_footer;
  for (std::size_t i = common; i < fresh.size(); ++i) {
    if (fresh[i] == footer) {
      a.had_footer = true;
    } else {
      a.tail.push_back(fresh[i]);
      a.origin.push_back(i);
    }
  }
  while (!a.tail.empty() && a.tail.back().empty()) {
    a.tail.pop_back();
    a.origin.pop_back();
  }
  a.old.assign(fresh.begin() + static_cast<std::ptrdiff_t>(context), fresh.end());
  while (!a.old.empty() && a.old.back().empty()) a.old.pop_back();
  a.before.assign(fresh.begin() + static_cast<std::ptrdiff_t>(context),
                  fresh.begin() + static_cast<std::ptrdiff_t>(common));
  if (drop_footer) {
    a.before.erase(a.before.begin());
    while (!a.before.empty() && a.before.front().empty()) a.before.erase(a.before.begin());
  }
  if (a.tail.empty()) return a;
  std::string tail_text;
  for (const std::string& l : a.tail) tail_text += l + "\n";
  a.scan = scan_requests(tail_text);
  return a;
}

Accepted accept_requests(const Appended& a, const std::string& agent, const std::string& page,
                         const HeaderWriter& header, const RefusalNote& refuse) {
  Accepted out;
  const Lines& tail = a.tail;
  std::size_t at = 0;
  for (const Request& r : a.scan.requests) {
    if (r.header && (!r.header->suffix.empty())) continue;  // reply-looking text is not a request
    out.normal.insert(out.normal.end(), tail.begin() + static_cast<std::ptrdiff_t>(at),
                      tail.begin() + static_cast<std::ptrdiff_t>(r.first));
    if (auto note = refuse ? refuse(r) : std::nullopt) {
      // Left as it is, unanswered, with the note under it.
      at = r.blocks.back().last + 1;
      out.normal.insert(out.normal.end(), tail.begin() + static_cast<std::ptrdiff_t>(r.first),
                        tail.begin() + static_cast<std::ptrdiff_t>(at));
      out.normal.insert(out.normal.end(), {"", std::move(*note)});
      ++out.refused;
      continue;
    }
    AcceptedRequest job;
    job.agent = r.header ? r.header->from : (agent.empty() ? "agent" : agent);
    Lines head;
    std::size_t from = r.first;
    if (!r.header_line) {
      head.push_back(header(job.agent, ""));
      ++out.written;
    } else if (r.header->to != page) {
      // The log names the page that runs it: the header is made to agree.
      head.push_back(header(job.agent, r.header->clock));
      from = r.first + 1;
      ++out.renamed;
    }
    for (const CodeBlock& b : r.blocks) {
      Lines seg = head;
      head.clear();
      seg.insert(seg.end(), tail.begin() + static_cast<std::ptrdiff_t>(from),
                 tail.begin() + static_cast<std::ptrdiff_t>(b.last + 1));
      job.segments.push_back(std::move(seg));
      job.codes.push_back(b.code);
      from = b.last + 1;
    }
    for (const Lines& seg : job.segments) out.normal.insert(out.normal.end(), seg.begin(), seg.end());
    at = from;
    out.requests.push_back(std::move(job));
  }
  if (out.requests.empty() && out.refused == 0) {
    out.normal.clear();
    return out;
  }
  out.normal.insert(out.normal.end(), tail.begin() + static_cast<std::ptrdiff_t>(at), tail.end());
  out.normal.insert(out.normal.begin(), a.before.begin(), a.before.end());
  return out;
}

namespace {

// "> **page** background at 12:00:00", with or without "> ": the name, else nullopt.
std::optional<std::string> background_header(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  if (line.starts_with(">")) line.remove_prefix(1);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (!line.starts_with("**")) return std::nullopt;
  const std::size_t close = line.find("**", 2);
  if (close == std::string_view::npos || close == 2 || !line.substr(close + 2).starts_with(" background at "))
    return std::nullopt;
  return std::string(line.substr(2, close - 2));
}

// A name from the log, as a note quotes it: short, one line, inline text.
std::string quoted_name(const std::string& name) {
  std::string n = header_name(name);
  if (n.size() > 60) {
    std::size_t cut = 57;
    while (cut > 0 && (static_cast<unsigned char>(n[cut]) & 0xC0) == 0x80) --cut;
    n = n.substr(0, cut) + "...";
  }
  return markdown_inline(n);
}

}  // namespace

std::vector<Unrun> unrun_headers(const Appended& a) {
  std::vector<Unrun> out;
  if (a.tail.empty() || a.scan.draft) return out;
  std::string text;
  for (const std::string& l : a.tail) text += l + "\n";
  std::vector<bool> in_fence(a.tail.size(), false);
  for (const Fence& f : fences(text, a.tail))
    for (std::size_t i = f.first; i <= f.last && i < in_fence.size(); ++i) in_fence[i] = true;
  std::vector<std::size_t> starts;  // the header lines of runnable requests
  for (const Request& r : a.scan.requests)
    if (r.header_line && r.header && r.header->suffix.empty()) starts.push_back(*r.header_line);
  for (std::size_t i = 0; i < a.tail.size(); ++i) {
    if (in_fence[i]) continue;
    if (auto h = parse_header(a.tail[i])) {
      if (!h->suffix.empty())
        out.push_back({i, h->from, true});
      else if (std::find(starts.begin(), starts.end(), i) == starts.end())
        out.push_back({i, h->from, false});
    } else if (auto bg = background_header(a.tail[i])) {
      out.push_back({i, *bg, true});
    }
  }
  return out;
}

Lines unrun_notes(const std::vector<Unrun>& unrun) {
  Lines out;
  for (const bool reply : {true, false}) {
    std::size_t n = 0;
    const Unrun* first = nullptr;
    for (const Unrun& u : unrun)
      if (u.reply == reply && n++ == 0) first = &u;
    if (!first) continue;
    const std::string which = n == 1 ? "a header above (from " + quoted_name(first->from) + ")"
                                     : std::to_string(n) + " headers above (the first from " +
                                           quoted_name(first->from) + ")";
    out.push_back(reply ? "> _" + which + " looks like a reply or background output, which only the gateway "
                                      "writes here: it was appended by someone else, is kept as text, and answers "
                                      "no request_"
                        : "> _" + which + " starts a request with no closed js block under it, so nothing "
                                      "ran; put the code in a fenced js block below_");
  }
  return out;
}

}  // namespace repl
