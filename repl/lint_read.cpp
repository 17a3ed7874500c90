// The Linter's reading: every header, block and footer of the log, in
// order, as requests (a runnable block, under its header or continuing the
// last request) and replies, with the problems reading finds on the way.
#include "repl/linter.hpp"

namespace repl::lint {

Linter::Section Linter::section(std::size_t at) const {
  Section s;
  bool text = false, runnable_seen = false, any = false;
  for (std::size_t j = at + 1; j < lines_.size(); ++j) {
    if (const Fence* f = fence_at_[j]) {
      if (!s.first_fence_runs) s.first_fence_runs = f->runs();
      if (!any) s.content_first = true;
      any = true;
      runnable_seen = runnable_seen || f->runs();
      j = f->last;
      continue;
    }
    if (in_fence_[j] || trim(lines_[j]).empty() || is_omitted(lines_[j])) continue;
    HeadParse next = read_header(lines_[j]);
    if (next.head || !next.malformed.empty()) break;
    if (is_placeholder(lines_[j]) && !text && !runnable_seen) {
      s.placeholder = j;
      if (!any) s.content_first = true;
    } else {
      text = true;
    }
    any = true;
    if (s.first_fence_runs && s.placeholder) break;
  }
  return s;
}

Role Linter::role(const Head& h, const Section& s) const {
  if (h.background) return Role::background;
  if (h.bare && !s.content_first) return Role::none;  // "**Note** to self" in prose
  if (!h.suffix.empty() || h.late_form || !h.time || s.placeholder) return Role::reply;
  if (s.first_fence_runs) return *s.first_fence_runs ? Role::request : Role::reply;
  return Role::none;  // a request header with nothing to run
}

void Linter::read() {
  Reading at;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (const Fence* f = fence_at_[i]) {
      read_fence(i, *f, at);
      i = f->last;
      continue;
    }
    if (in_fence_[i]) continue;
    if (trim(lines_[i]) == footer) {
      at.footers.push_back(i);
      continue;
    }
    read_header_line(i, at);
  }
  read_footers(at.footers);
}

// A fence opening at line `i`: a request when it is closed and runs.
void Linter::read_fence(std::size_t i, const Fence& f, Reading& at) {
  if (!f.closed) {
    problem(i, LintCode::unclosed_fence,
            "the fence " + quote(i) + " opened here is never closed, so " +
                (f.last == i     ? std::string("it holds nothing")
                 : f.last == i + 1 ? "line " + std::to_string(i + 2) + " is its text"
                                   : "lines " + std::to_string(i + 2) + "-" + std::to_string(f.last + 1) +
                                         " are its text, and no header or block in them counts") +
                (f.runs() ? "; its code is not run" : "") + "; close it with a line of " + f.marker);
    return;
  }
  if (!f.runs()) return;
  Req q;
  q.block = i;
  if (at.header_line) {
    q.line = *at.header_line;
    q.header = at.header_line;
  } else {
    q.line = i;
    q.header = at.context_line;
  }
  q.head = at.context;
  if (!at.header_line) q.after_reply = at.last_reply;
  at.header_line.reset();
  requests_.push_back(std::move(q));
  order_.push_back({false, requests_.size() - 1});
}

// A line outside fences that may be a header.
void Linter::read_header_line(std::size_t i, Reading& at) {
  HeadParse p = read_header(lines_[i]);
  if (!p.malformed.empty()) {
    problem(i, LintCode::malformed_header,
            quote(i) + " looks like a header but " + p.malformed +
                "; it is read as text, so it is neither a request nor a reply (a header is '> **name** to "
                "name at HH:MM:SS')");
    return;
  }
  if (!p.head) return;
  const Section s = section(i);
  switch (role(*p.head, s)) {
    case Role::none:
      if (!p.head->bare) ++report_.headers;
      break;
    case Role::background:
      at.header_line.reset();
      pages_.push_back(p.head->from);
      break;
    case Role::request:
      ++report_.headers;
      at.header_line = i;
      at.context = p.head;
      at.context_line = i;
      at.last_reply.reset();
      pages_.push_back(p.head->to);
      break;
    case Role::reply: read_reply(i, *p.head, s, at); break;
  }
}

void Linter::read_reply(std::size_t i, const Head& h, const Section& s, Reading& at) {
  ++report_.headers;
  at.header_line.reset();
  Rep r;
  r.line = i;
  r.head = h;
  r.placeholder = r.head.suffix.empty() ? s.placeholder : std::nullopt;
  const std::string& sx = r.head.suffix;
  r.gateway_late = starts_with(sx, "late,") || starts_with(sx, "**ERROR** late,");
  r.timeout = starts_with(sx, "**ERROR** timeout");
  // "**ERROR** after 16ms" is the page's own error; "**ERROR** <code> after"
  // and ", never started" are the gateway's, which end the request.
  r.ends_request = (starts_with(sx, "**ERROR** ") && !starts_with(sx, "**ERROR** after") && !r.gateway_late) ||
                   sx.find("never started") != npos;
  pages_.push_back(r.head.from);
  replies_.push_back(std::move(r));
  order_.push_back({true, replies_.size() - 1});
  at.last_reply = i;
}

void Linter::read_footers(const std::vector<std::size_t>& footers) {
  // The gateway takes the footer away when it accepts a request and puts
  // it back under the reply: what is below the last one is not taken yet.
  if (!footers.empty())
    for (Req& q : requests_) q.below_footer = q.line > footers.back();
  for (std::size_t k = 0; k + 1 < footers.size(); ++k)
    problem(footers[k], LintCode::duplicate_footer,
            "the footer line is here and at line " + std::to_string(footers.back() + 1) +
                (footers.size() > 2 ? " (and " + std::to_string(footers.size() - 2) + " more)" : "") +
                ": the gateway keeps exactly one, as the last line, and anchors its writes on it; delete this one");
}

}  // namespace repl::lint
