#include "repl/lint.hpp"

#include "editproto/unicode.hpp"
#include "repl/format.hpp"
#include "repl/markdown.hpp"
#include "repl/names.hpp"

#include <boost/json.hpp>
#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace repl {

std::string_view to_string(LintCode c) {
  switch (c) {
    case LintCode::unanswered: return "unanswered";
    case LintCode::orphan_reply: return "orphan_reply";
    case LintCode::unclosed_fence: return "unclosed_fence";
    case LintCode::duplicate_footer: return "duplicate_footer";
    case LintCode::malformed_header: return "malformed_header";
    case LintCode::executing: return "executing";
  }
  return "unanswered";
}

std::string_view to_string(PairFlag f) {
  switch (f) {
    case PairFlag::ambiguous: return "ambiguous";
    case PairFlag::heuristic: return "heuristic";
    case PairFlag::fallback_timestamp: return "fallback_timestamp";
    case PairFlag::late: return "late";
  }
  return "ambiguous";
}

std::string_view to_string(LogForm f) { return f == LogForm::single_file ? "single-file" : "per-instance"; }

namespace {

constexpr std::size_t npos = std::string_view::npos;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Whether `s` holds something like a time ("25:61", "12:00:00").
bool clock_like(std::string_view s) {
  for (std::size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == ':' && digit(s[i - 1]) && digit(s[i + 1])) return true;
  return false;
}

// Only digits and colons, with a colon: a clock, right or wrong.
bool only_clock(std::string_view s) {
  return clock_like(s) && std::all_of(s.begin(), s.end(), [](char c) { return digit(c) || c == ':'; });
}

// Why `c` is not a time of day as HH:MM:SS; empty when it is one.
std::string clock_problem(std::string_view c) {
  if (!(c.size() == 8 && digit(c[0]) && digit(c[1]) && c[2] == ':' && digit(c[3]) && digit(c[4]) && c[5] == ':' &&
        digit(c[6]) && digit(c[7])))
    return "'" + std::string(c) + "' is not a time written HH:MM:SS";
  const int h = (c[0] - '0') * 10 + (c[1] - '0'), m = (c[3] - '0') * 10 + (c[4] - '0'),
            s = (c[6] - '0') * 10 + (c[7] - '0');
  if (h > 23 || m > 59 || s > 59)
    return std::string(c) + " is not a time of day (hours 00-23, minutes and seconds 00-59)";
  return {};
}

int seconds_of(std::string_view c) {
  return ((c[0] - '0') * 10 + (c[1] - '0')) * 3600 + ((c[3] - '0') * 10 + (c[4] - '0')) * 60 + (c[6] - '0') * 10 +
         (c[7] - '0');
}

std::string lines_list(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l + 1);
  return out;
}

// "index-7-zen-1a2b.md": a page's name, a dash, an instance id, ".md".
bool names_instance(std::string_view file) {
  if (!file.ends_with(".md")) return false;
  file.remove_suffix(3);
  const std::size_t dash = file.rfind('-');
  return dash != npos && dash > 0 && valid_id(file.substr(dash + 1));
}

// A page's short name ("12-dove") names its instance ("12-dove-1631-13").
bool same_page(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a.size() > b.size()) std::swap(a, b);
  return a == b || (starts_with(b, a) && b[a.size()] == '-');
}

// ---- headers -------------------------------------------------------------------

struct Head {
  bool background = false;  // "> **page** background at HH:MM:SS"
  std::string from, to, clock, suffix;
  std::optional<int> time;  // seconds of the day; nullopt: no time written
  bool late_form = false;   // the legacy single-file format's "**page** to agent(HH:MM:SS)"
  bool bare = false;        // no time: a header only when a block or the placeholder follows it
};

// A line that starts like a header either parses or says why not; any
// other line is neither.
struct HeadParse {
  std::optional<Head> head;
  std::string malformed;
};

HeadParse read_header(std::string_view raw) {
  std::string_view s = trim(raw);
  if (starts_with(s, ">")) s = trim(s.substr(1));
  if (!starts_with(s, "**")) return {};
  const std::size_t close = s.find("**", 2);
  if (close == npos || close == 2) return {};
  const std::string name(s.substr(2, close - 2));
  const std::string_view rest = s.substr(close + 2);
  auto bad = [](std::string why) { return HeadParse{std::nullopt, std::move(why)}; };

  Head h;
  h.from = name;
  if (auto p = parse_header(raw)) {  // the form the gateway writes and reads
    if (std::string why = clock_problem(p->clock); !why.empty()) return bad(why);
    h.to = p->to;
    h.clock = p->clock;
    h.suffix = p->suffix;
    h.time = seconds_of(p->clock);
    return {h, {}};
  }
  if (starts_with(rest, " background")) {
    std::string_view r = rest.substr(11);
    if (!starts_with(r, " at ")) return bad("'background' is not followed by ' at HH:MM:SS'");
    std::string_view c = trim(r.substr(4));
    if (std::string why = clock_problem(c); !why.empty()) return bad(why);
    h.background = true;
    h.clock = std::string(c);
    h.time = seconds_of(c);
    return {h, {}};
  }
  if (!starts_with(rest, " to ")) {
    if (clock_like(rest)) return bad("there is no ' to <name>' after **" + name + "**");
    return {};  // bold text in prose
  }
  const std::string_view r = trim(rest.substr(4));
  const std::size_t end = r.find_first_of(" (");
  const std::string_view to = r.substr(0, end);
  const std::string_view after = trim(end == npos ? std::string_view() : r.substr(end));
  if (to.empty()) return clock_like(r) ? bad("there is no name after ' to '") : HeadParse{};
  h.to = std::string(to);
  if (after.empty()) {
    h.bare = true;
    return {h, {}};
  }
  if (after.front() == '(') {
    if (after.back() != ')')
      return clock_like(after) ? bad("the '(' after '" + h.to + "' is never closed") : HeadParse{};
    const std::string_view inner = trim(after.substr(1, after.size() - 2));
    if (only_clock(inner)) {  // the late form
      if (std::string why = clock_problem(inner); !why.empty()) return bad(why);
      h.clock = std::string(inner);
      h.time = seconds_of(inner);
      h.late_form = true;
      return {h, {}};
    }
    h.suffix = std::string(inner);
    h.bare = true;
    return {h, {}};
  }
  if (starts_with(after, "at ") || after == "at") {
    const std::string_view c = trim(after.substr(2));
    const std::size_t ce = c.find_first_of(" (");
    const std::string_view clock = c.substr(0, ce);
    const std::string_view tail = trim(ce == npos ? std::string_view() : c.substr(ce));
    if (clock.empty()) return bad("there is no time after ' at '");
    if (std::string why = clock_problem(clock); !why.empty()) return bad(why);
    if (!tail.empty() && !(tail.front() == '(' && tail.back() == ')'))
      return bad("'" + std::string(tail) + "' after the time is not a '(...)' suffix such as '(17ms)'");
    h.clock = std::string(clock);
    h.time = seconds_of(clock);
    if (!tail.empty()) h.suffix = std::string(tail.substr(1, tail.size() - 2));
    return {h, {}};
  }
  const std::size_t at = r.find(" at ");
  if (at != npos || clock_like(r))
    return bad("'" + std::string(r.substr(0, at)) +
               "' after ' to ' is not one name: page and agent names hold no spaces");
  return {};  // "**Tip** to avoid this, ..."
}

bool is_placeholder(std::string_view line) {
  line = trim(line);
  if (!starts_with(line, "executing")) return false;
  return line.size() == 9 || line[9] == ' ' || line[9] == '(' || line[9] == '.';
}

// "... (3 more background events omitted) ..."
bool is_omitted(std::string_view line) {
  line = trim(line);
  return starts_with(line, "... (") && line.find("omitted) ...") != npos;
}

// ---- the log as requests and replies -------------------------------------------

enum class Role { none, request, reply, background };

struct Req {
  std::size_t line = 0;   // its header, or its block when it has none of its own
  std::size_t block = 0;  // the opening fence
  std::optional<std::size_t> header;      // the request header it is under, if any
  std::optional<Head> head;               // that header
  std::optional<std::size_t> after_reply;  // the last reply above it, when nothing started a request since
  bool below_footer = false;
  std::optional<std::size_t> reply;  // the reply that answered it
  std::optional<std::size_t> timeout_reply;
  bool late_taken = false;
  std::string tie;  // set when it shared its second with other requests
};

struct Rep {
  std::size_t line = 0;
  Head head;
  std::optional<std::size_t> placeholder;
  bool gateway_late = false;  // "(late, 3.0s after the request)"
  bool timeout = false;       // "(**ERROR** timeout after 60.0s)"
  bool ends_request = false;  // the gateway ran no later block of its request
};

class Linter {
 public:
  Linter(std::string_view path, std::string_view text, std::optional<std::chrono::system_clock::time_point> mtime)
      : text_(text), lines_(split_lines(text)), mtime_(mtime) {
    report_.path = std::string(path);
  }

  LintReport run() {
    fences_ = fences(text_, lines_);
    fence_at_.assign(lines_.size(), nullptr);
    in_fence_.assign(lines_.size(), false);
    for (const Fence& f : fences_) {
      fence_at_[f.first] = &f;
      for (std::size_t i = f.first; i <= f.last; ++i) in_fence_[i] = true;
    }
    read();
    decide_form();
    if (report_.form == LogForm::per_instance)
      pair_by_order();
    else
      pair_by_time();
    for (const Req& q : requests_)
      if (!q.reply && !q.timeout_reply) unanswered(q);
    std::stable_sort(report_.problems.begin(), report_.problems.end(),
                     [](const LintProblem& a, const LintProblem& b) { return a.line < b.line; });
    // Messages quote the file: kept valid UTF-8 for the JSON output.
    for (LintProblem& p : report_.problems) p.message = editproto::unicode::to_valid_utf8(p.message);
    for (LintPair& p : report_.pairs) p.note = editproto::unicode::to_valid_utf8(p.note);
    report_.requests = requests_.size();
    report_.replies = replies_.size();
    return std::move(report_);
  }

 private:
  void problem(std::size_t line, LintCode code, std::string message) {
    report_.problems.push_back({line + 1, code, std::move(message)});
  }

  // A line as a message shows it: short, cut between characters.
  std::string quote(std::size_t line) const {
    std::string s(trim(lines_[line]));
    if (s.size() > 80) {
      std::size_t cut = 77;
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
      s = s.substr(0, cut) + "...";
    }
    return "'" + s + "'";
  }

  // What follows a header up to the next one: whether it is a request, a
  // reply or the gateway's announcement of a running job.
  struct Section {
    std::optional<std::size_t> placeholder;
    std::optional<bool> first_fence_runs;
    bool content_first = false;  // a fence or the placeholder comes before any text
  };

  Section section(std::size_t at) const {
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

  Role role(const Head& h, const Section& s) const {
    if (h.background) return Role::background;
    if (h.bare && !s.content_first) return Role::none;  // "**Note** to self" in prose
    if (!h.suffix.empty() || h.late_form || !h.time || s.placeholder) return Role::reply;
    if (s.first_fence_runs) return *s.first_fence_runs ? Role::request : Role::reply;
    return Role::none;  // a request header with nothing to run
  }

  // Every header, block and footer, in order.
  void read() {
    std::vector<std::size_t> footers;
    std::optional<std::size_t> header_line;  // of the request whose first block is still to come
    std::optional<Head> context;             // the last request header
    std::optional<std::size_t> context_line, last_reply;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (const Fence* f = fence_at_[i]) {
        if (!f->closed) {
          problem(i, LintCode::unclosed_fence,
                  "the fence " + quote(i) + " opened here is never closed, so " +
                      (f->last == i     ? std::string("it holds nothing")
                       : f->last == i + 1 ? "line " + std::to_string(i + 2) + " is its text"
                                          : "lines " + std::to_string(i + 2) + "-" + std::to_string(f->last + 1) +
                                                " are its text, and no header or block in them counts") +
                      (f->runs() ? "; its code is not run" : "") + "; close it with a line of " + f->marker);
        } else if (f->runs()) {
          Req q;
          q.block = i;
          if (header_line) {
            q.line = *header_line;
            q.header = header_line;
          } else {
            q.line = i;
            q.header = context_line;
          }
          q.head = context;
          if (!header_line) q.after_reply = last_reply;
          header_line.reset();
          requests_.push_back(std::move(q));
          order_.push_back({false, requests_.size() - 1});
        }
        i = f->last;
        continue;
      }
      if (in_fence_[i]) continue;
      if (trim(lines_[i]) == footer) {
        footers.push_back(i);
        continue;
      }
      HeadParse p = read_header(lines_[i]);
      if (!p.malformed.empty()) {
        problem(i, LintCode::malformed_header,
                quote(i) + " looks like a header but " + p.malformed +
                    "; it is read as text, so it is neither a request nor a reply (a header is '> **name** to "
                    "name at HH:MM:SS')");
        continue;
      }
      if (!p.head) continue;
      const Section s = section(i);
      switch (role(*p.head, s)) {
        case Role::none:
          if (!p.head->bare) ++report_.headers;
          break;
        case Role::background:
          header_line.reset();
          pages_.push_back(p.head->from);
          break;
        case Role::request:
          ++report_.headers;
          header_line = i;
          context = p.head;
          context_line = i;
          last_reply.reset();
          pages_.push_back(p.head->to);
          break;
        case Role::reply: {
          ++report_.headers;
          header_line.reset();
          Rep r;
          r.line = i;
          r.head = *p.head;
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
          last_reply = i;
          break;
        }
      }
    }
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

  // debug.md: the legacy single-file log. A file named for a page instance
  // (<name>-<id>.md, as the gateway names its logs) is that page's, so
  // its requests run there whatever page their headers name: paired by
  // order, as the gateway answers them. Any other file holding headers that
  // name more than one page is a single-file log too.
  void decide_form() {
    std::string_view name = report_.path;
    if (const std::size_t slash = name.find_last_of('/'); slash != npos) name.remove_prefix(slash + 1);
    if (name != "debug.md" && names_instance(name)) {
      report_.form = LogForm::per_instance;
      return;
    }
    std::vector<std::string> groups;
    for (const std::string& p : pages_)
      if (std::none_of(groups.begin(), groups.end(), [&](const std::string& g) { return same_page(g, p); }))
        groups.push_back(p);
    report_.form = name == "debug.md" || groups.size() > 1 ? LogForm::single_file : LogForm::per_instance;
  }

  void pair(Req& q, Rep& r, std::vector<PairFlag> flags, std::vector<std::string> why) {
    if (!q.reply) q.reply = r.line;  // a late reply leaves the first one in place
    LintPair p;
    p.request_line = q.line + 1;
    p.reply_line = r.line + 1;
    p.flags = std::move(flags);
    if (!p.flags.empty()) {
      p.note = "reply matched the request at line " + std::to_string(q.line + 1) + " (";
      for (std::size_t k = 0; k < why.size(); ++k) p.note += (k ? "; " : "") + why[k];
      p.note += ")";
    }
    report_.pairs.push_back(std::move(p));
    if (r.timeout) q.timeout_reply = r.line;
    if (r.placeholder)
      problem(*r.placeholder, LintCode::executing,
              "the reply at line " + std::to_string(r.line + 1) + " to the request at line " +
                  std::to_string(q.line + 1) + " is still " + quote(*r.placeholder) +
                  ": the job is still running, or the gateway stopped before it ended (then no reply will come: run "
                  "the block again)");
  }

  // A late reply belongs to the newest request that timed out and has no late reply yet.
  Req* timed_out(const Rep& r, bool by_name) {
    for (auto it = requests_.rbegin(); it != requests_.rend(); ++it) {
      if (it->block > r.line || !it->timeout_reply || it->late_taken) continue;
      if (by_name && !(it->head && candidate(*it, r))) continue;
      return &*it;
    }
    return nullptr;
  }

  bool late_pair(Rep& r, bool by_name) {
    Req* q = timed_out(r, by_name);
    if (!q) return false;
    q->late_taken = true;
    pair(*q, r, {PairFlag::late},
         {"late: it came after the timeout reply at line " + std::to_string(*q->timeout_reply + 1)});
    return true;
  }

  void orphan(const Rep& r, const std::string& why) {
    problem(r.line, LintCode::orphan_reply, "this reply has no request: " + why);
    if (r.placeholder)
      problem(*r.placeholder, LintCode::executing,
              "the reply at line " + std::to_string(r.line + 1) + " is still " + quote(*r.placeholder) +
                  " and no request owns it");
  }

  // Per-instance: one job at a time, so a reply answers the nearest block
  // above it that is not answered yet; clocks are not compared (they wrap
  // at midnight).
  void pair_by_order() {
    std::vector<std::size_t> open;  // unanswered requests, in order
    for (auto [is_reply, k] : order_) {
      if (!is_reply) {
        open.push_back(k);
        continue;
      }
      Rep& r = replies_[k];
      if (r.gateway_late) {
        if (!late_pair(r, false)) orphan(r, "it is a late reply, but no request above it timed out");
        continue;
      }
      if (r.head.late_form && late_pair(r, false)) continue;
      if (open.empty()) {
        std::string why = "every runnable block above it is answered already";
        for (auto it = requests_.rbegin(); it != requests_.rend(); ++it)
          if (it->block < r.line && it->reply) {
            why += " (the last, at line " + std::to_string(it->line + 1) + ", by the reply at line " +
                   std::to_string(*it->reply + 1) + ")";
            break;
          }
        if (std::none_of(requests_.begin(), requests_.end(), [&](const Req& q) { return q.block < r.line; }))
          why = "there is no runnable block above it";
        orphan(r, why);
        continue;
      }
      Req& q = requests_[open.back()];
      open.pop_back();
      if (r.head.late_form)
        pair(q, r, {PairFlag::late}, {"late: the reply gives the time it was posted, " + r.head.clock});
      else
        pair(q, r, {}, {});
    }
  }

  bool candidate(const Req& q, const Rep& r) const {
    return same_page(q.head->to, r.head.from) && (q.head->from == r.head.to || r.head.to == "agent");
  }

  // the legacy single-file format: a reply goes to the nearest unmatched request before its time,
  // of its page, from its agent (or any agent when it answers "agent").
  void pair_by_time() {
    std::optional<int> file_time;
    if (mtime_) {
      const std::string c = clock_text(*mtime_);
      file_time = seconds_of(c);
    }
    for (auto [is_reply, k] : order_) {
      if (!is_reply) continue;
      Rep& r = replies_[k];
      if (r.gateway_late) {
        if (!late_pair(r, true)) orphan(r, "it is a late reply, but no request above it to this page timed out");
        continue;
      }
      std::vector<PairFlag> flags;
      std::vector<std::string> why;
      int t = 24 * 3600;  // no time at all: later than every request
      if (r.head.time) {
        t = *r.head.time;
      } else {
        flags.push_back(PairFlag::fallback_timestamp);
        if (file_time) {
          t = *file_time;
          why.push_back("fallback_timestamp: the reply has no time, so the file's modification time, " +
                        clock_text(*mtime_) + ", stands in");
        } else {
          why.push_back("fallback_timestamp: the reply has no time and the file's is unknown, so it counts as later "
                        "than every request");
        }
      }
      if (r.head.late_form) {
        flags.push_back(PairFlag::late);
        why.push_back("late: the reply gives the time it was posted, " + r.head.clock);
      }
      std::vector<Req*> cands;
      for (Req& q : requests_)
        if (q.block < r.line && !q.reply && q.head && candidate(q, r)) cands.push_back(&q);
      if (cands.empty()) {
        orphan(r, "no unanswered request from " + (r.head.to == "agent" ? std::string("any agent") : r.head.to) +
                      " to " + r.head.from + " comes before it");
        continue;
      }
      Req* best = nullptr;
      for (Req* q : cands)  // the earliest of the latest second: FIFO
        if (*q->head->time <= t && (!best || *q->head->time > *best->head->time)) best = q;
      if (best) {
        std::vector<std::size_t> tied, headers;
        for (Req* q : cands)
          if (*q->head->time == *best->head->time) {
            tied.push_back(q->line);
            if (std::find(headers.begin(), headers.end(), *q->header) == headers.end()) headers.push_back(*q->header);
          }
        // Blocks of one request run in order; only separate requests in one second are a guess.
        if (headers.size() > 1) {
          const std::string tie = "ambiguous: " + std::to_string(tied.size()) + " requests to " + best->head->to +
                                  " at " + best->head->clock + " (lines " + lines_list(tied) +
                                  "); FIFO: the first unanswered one";
          for (Req* q : cands)
            if (*q->head->time == *best->head->time) q->tie = tie;
        }
        if (!best->tie.empty()) {
          flags.insert(flags.begin(), PairFlag::ambiguous);
          why.insert(why.begin(), best->tie);
        }
      } else {
        best = cands.back();
        flags.push_back(PairFlag::heuristic);
        why.push_back("heuristic: no request to " + r.head.from + " is at or before " +
                      (r.head.time ? r.head.clock : std::string("the file's time")) +
                      ", so the latest unanswered one (" + best->head->clock + ") was taken: clock skew?");
      }
      pair(*best, r, std::move(flags), std::move(why));
    }
  }

  void unanswered(const Req& q) {
    const std::string what = q.line == q.block ? "this block" : "this request";
    std::string why;
    if (report_.form == LogForm::single_file && !q.head) {
      why = "no request header above it names a page, so nothing can answer it";
    } else if (q.below_footer) {
      why = "it is below the footer, so the gateway has not taken it yet (is `editgate serve` running?)";
    } else if (q.after_reply && ends(*q.after_reply)) {
      why = "it was never run: the reply at line " + std::to_string(*q.after_reply + 1) +
            " ended its request, and the gateway runs no later block of a request that ended so";
    } else if (report_.form == LogForm::single_file) {
      why = "no reply from " + q.head->to + " to " + q.head->from + (q.head->from == "agent" ? "" : " or to agent") +
            " at or after " + q.head->clock + " matched it";
    } else {
      why = "no reply follows it (the gateway writes it under the block): was it deleted, or did the gateway "
            "never see the request?";
    }
    problem(q.line, LintCode::unanswered, what + " has no reply: " + why);
  }

  bool ends(std::size_t reply_line) const {
    for (const Rep& r : replies_)
      if (r.line == reply_line) return r.ends_request;
    return false;
  }

  std::string_view text_;
  Lines lines_;
  std::optional<std::chrono::system_clock::time_point> mtime_;
  LintReport report_;
  std::vector<Fence> fences_;
  std::vector<const Fence*> fence_at_;
  std::vector<bool> in_fence_;
  std::vector<Req> requests_;
  std::vector<Rep> replies_;
  std::vector<std::pair<bool, std::size_t>> order_;  // (is a reply, index), in file order
  std::vector<std::string> pages_;                   // every page a header names
};

}  // namespace

LintReport lint_log(std::string_view path, std::string_view text,
                    std::optional<std::chrono::system_clock::time_point> mtime) {
  return Linter(path, text, mtime).run();
}

std::string lint_text(const LintReport& r) {
  std::vector<std::pair<std::size_t, std::string>> rows;
  for (const LintProblem& p : r.problems)
    rows.emplace_back(p.line, r.path + ":" + std::to_string(p.line) + ": " + std::string(to_string(p.code)) + ": " +
                                  p.message + "\n");
  for (const LintPair& p : r.pairs)
    if (!p.flags.empty())
      rows.emplace_back(p.reply_line, r.path + ":" + std::to_string(p.reply_line) + ": note: " + p.note + "\n");
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& row : rows) out += row.second;
  return out;
}

boost::json::object lint_json(const LintReport& r) {
  boost::json::array pairs, problems;
  for (const LintPair& p : r.pairs) {
    boost::json::array flags;
    for (PairFlag f : p.flags) flags.emplace_back(to_string(f));
    boost::json::object o{{"request_line", p.request_line}, {"reply_line", p.reply_line}, {"flags", std::move(flags)}};
    if (!p.note.empty()) o["note"] = p.note;
    pairs.push_back(std::move(o));
  }
  for (const LintProblem& p : r.problems)
    problems.push_back(boost::json::object{{"line", p.line}, {"code", to_string(p.code)}, {"message", p.message}});
  return {{"path", r.path},
          {"form", to_string(r.form)},
          {"requests", r.requests},
          {"replies", r.replies},
          {"pairs", std::move(pairs)},
          {"problems", std::move(problems)}};
}

}  // namespace repl
