// The Linter's pairing: each reply given to the request it answers, by
// order in a per-instance log and by names and clocks in the single file;
// late replies, orphans and unanswered requests said with their reasons.
#include "repl/linter.hpp"

#include <algorithm>

namespace repl::lint {

void Linter::pair(Req& q, Rep& r, std::vector<PairFlag> flags, std::vector<std::string> why) {
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
Req* Linter::timed_out(const Rep& r, bool by_name) {
  for (auto it = requests_.rbegin(); it != requests_.rend(); ++it) {
    if (it->block > r.line || !it->timeout_reply || it->late_taken) continue;
    if (by_name && !(it->head && candidate(*it, r))) continue;
    return &*it;
  }
  return nullptr;
}

bool Linter::late_pair(Rep& r, bool by_name) {
  Req* q = timed_out(r, by_name);
  if (!q) return false;
  q->late_taken = true;
  pair(*q, r, {PairFlag::late},
       {"late: it came after the timeout reply at line " + std::to_string(*q->timeout_reply + 1)});
  return true;
}

void Linter::orphan(const Rep& r, const std::string& why) {
  problem(r.line, LintCode::orphan_reply, "this reply has no request: " + why);
  if (r.placeholder)
    problem(*r.placeholder, LintCode::executing,
            "the reply at line " + std::to_string(r.line + 1) + " is still " + quote(*r.placeholder) +
                " and no request owns it");
}

// Per-instance: one job at a time, so a reply answers the nearest block
// above it that is not answered yet; clocks are not compared (they wrap
// at midnight).
void Linter::pair_by_order() {
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

bool Linter::candidate(const Req& q, const Rep& r) const {
  return same_page(q.head->to, r.head.from) && (q.head->from == r.head.to || r.head.to == "agent");
}

// the single-file format: a reply goes to the nearest unmatched request before its time,
// of its page, from its agent (or any agent when it answers "agent").
void Linter::pair_by_time() {
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

void Linter::unanswered(const Req& q) {
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

bool Linter::ends(std::size_t reply_line) const {
  for (const Rep& r : replies_)
    if (r.line == reply_line) return r.ends_request;
  return false;
}

}  // namespace repl::lint
