#include "repl/events_log.hpp"
#include "repl/read_at.hpp"

#include "editproto/unicode.hpp"
#include "repl/page_state.hpp"

#include <boost/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

namespace repl {

namespace json = boost::json;

namespace {

constexpr std::size_t block_bytes = 64 * 1024;  // one read of the file
constexpr std::size_t indent = 4;               // of an event's further lines
// Enough of a line to tell an event line: "HH:MM:SS " and a 40-byte source, then ": ".
constexpr std::size_t prefix_max = 9 + 40 + 2;
// The most events one reply of the events op carries, whatever limit asks.
constexpr std::size_t events_reply_max = 1000;

struct Line {
  std::uint64_t start = 0, stop = 0;  // without its '\n'
  std::size_t share = 0;              // a further line's bytes in its event's text
  std::size_t size() const { return static_cast<std::size_t>(stop - start); }
};

Failure read_failure(int err) { return {Error::io, std::string("cannot read the events log: ") + std::strerror(err)}; }

// The lines of a file from an offset backwards, read a block at a time.
class BackLines {
 public:
  enum class Step { line, start, scan_bound };
  BackLines(int fd, std::uint64_t end, std::size_t scan) : fd_(fd), end_(end), reached_(end), scan_(scan) {}

  // The line that ends where the last one started (`line`), or the start
  // of the file, or the scan bound reached in the middle of a line.
  Result<Step> prev(Line& line) {
    if (end_ == 0) return Step::start;
    std::uint64_t stop = end_;
    if (!covered(stop)) {
      if (scanned_ >= scan_) return Step::scan_bound;
      if (auto ok = cover(stop); !ok) return ok.error();
    }
    if (buf_[static_cast<std::size_t>(stop - 1 - buf_at_)] == '\n') --stop;
    std::uint64_t pos = stop;  // '\n' is looked for before pos
    while (pos > 0) {
      if (!covered(pos)) {
        if (scanned_ >= scan_) return Step::scan_bound;
        if (auto ok = cover(pos); !ok) return ok.error();
      }
      const char* b = buf_.data();
      if (const void* nl = ::memrchr(b, '\n', static_cast<std::size_t>(pos - buf_at_))) {
        pos = buf_at_ + static_cast<std::uint64_t>(static_cast<const char*>(nl) - b) + 1;
        break;
      }
      pos = buf_at_;
    }
    line = {pos, stop};
    end_ = pos;
    return Step::line;
  }

  // Up to `n` bytes from `at`, from the block when it holds them.
  Result<std::string> bytes(std::uint64_t at, std::size_t n) const {
    if (at >= buf_at_ && at + n <= buf_at_ + buf_.size()) return buf_.substr(static_cast<std::size_t>(at - buf_at_), n);
    return read_at(fd_, at, n, "the events log");
  }

  // The lowest offset read so far: where a scan stopped by its bound ends.
  std::uint64_t reached() const { return reached_; }

 private:
  // Whether the block holds the byte just below `before`.
  bool covered(std::uint64_t before) const { return before > buf_at_ && before <= buf_at_ + buf_.size(); }

  // Reads the block that ends at `before` (the bytes just below it).
  Result<void> cover(std::uint64_t before) {
    const std::uint64_t at = before > block_bytes ? before - block_bytes : 0;
    buf_.resize(static_cast<std::size_t>(before - at));
    std::size_t got = 0;
    while (got < buf_.size()) {
      const ssize_t r = ::pread(fd_, buf_.data() + got, buf_.size() - got, static_cast<off_t>(at + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return read_failure(errno);
      if (r == 0) return Failure{Error::io, "the events log ended before its size while it was read"};
      got += static_cast<std::size_t>(r);
    }
    buf_at_ = at;
    scanned_ += buf_.size();
    reached_ = std::min(reached_, at);
    return {};
  }

  int fd_;
  std::uint64_t end_;      // lines before this one are still to be read
  std::uint64_t reached_;  // the lowest offset read
  std::size_t scan_;
  std::size_t scanned_ = 0;
  std::string buf_;
  std::uint64_t buf_at_ = 0;  // buf_ holds the bytes from here
};

bool clock_char(char c) { return (c >= '0' && c <= '9') || c == '?'; }
bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

// The length of an event line's "HH:MM:SS source: ", its time and source
// set; 0 when `head` starts no event (a further line, or a line a person
// wrote into the log).
std::size_t event_prefix(std::string_view head, LoggedEvent& e) {
  if (head.size() < 12 || head[2] != ':' || head[5] != ':' || head[8] != ' ') return 0;
  for (std::size_t i : {0, 1, 3, 4, 6, 7})
    if (!clock_char(head[i])) return 0;
  std::size_t end = 9;
  while (end < head.size() && end - 9 < 40 && token_char(head[end])) ++end;
  if (end == 9 || head.substr(end, 2) != ": ") return 0;
  e.time = std::string(head.substr(0, 8));
  e.source = std::string(head.substr(9, end - 9));
  return end + 2;
}

// The first `n` bytes of `s`, not cutting a character in two, as valid UTF-8.
std::string utf8_head(std::string s, std::size_t n) {
  if (s.size() > n) {
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s.resize(n);
  }
  return editproto::unicode::to_valid_utf8(s);
}

// An event's text: the rest of its first line (`first`: from `skip`) and its
// further lines (`more`, earliest first), without their indent, as far as
// limits.text_bytes; `whole` is the text's full length.
Result<void> compose(const BackLines& lines, const Line* first, std::size_t skip, const std::deque<Line>& more,
                     std::size_t whole, std::size_t cap, LoggedEvent& e) {
  std::string text;
  auto add = [&](std::uint64_t at, std::size_t size) -> Result<void> {
    if (text.size() > cap) return {};
    auto got = lines.bytes(at, std::min(size, cap - text.size() + 4));
    if (!got) return got.error();
    text += *got;
    return {};
  };
  if (first)
    if (auto ok = add(first->start + skip, first->size() - skip); !ok) return ok;
  for (const Line& l : more) {
    if (first || &l != &more.front()) text += '\n';
    auto head = lines.bytes(l.start, std::min(l.size(), indent));
    if (!head) return head.error();
    const std::size_t cut = *head == std::string(indent, ' ') ? indent : 0;
    if (auto ok = add(l.start + cut, l.size() - cut); !ok) return ok;
  }
  e.text_bytes = whole;
  e.truncated = whole > cap;
  e.text = utf8_head(std::move(text), cap);
  return {};
}

}  // namespace

// Longer than most: one pass over the lines that keeps the few a text
// needs, and the three bounds that may end it, in one place.
Result<EventsRead> read_events_back(int fd, std::uint64_t end, const EventsLimits& limits) {
  BackLines lines(fd, end, limits.scan_bytes);
  EventsRead out;
  std::deque<Line> more;       // the further lines of the event being read, earliest first: those its text may need
  std::size_t more_kept = 0;   // their bytes in the text
  std::size_t more_whole = 0;  // the bytes of all its further lines seen
  std::size_t reply = 0;       // the texts' bytes so far
  std::uint64_t oldest = end;  // where the oldest event returned starts
  // Takes an event into the reply; false when the reply's bound leaves it out.
  auto take = [&](LoggedEvent e) {
    if (!out.events.empty() && reply + e.text.size() > limits.reply_bytes) return false;
    reply += e.text.size();
    oldest = e.offset;
    out.events.push_back(std::move(e));
    more.clear();
    more_kept = more_whole = 0;
    return true;
  };
  while (out.events.size() < limits.events) {
    Line l;
    auto step = lines.prev(l);
    if (!step) return step.error();
    if (*step == BackLines::Step::scan_bound) {
      out.cut = EventsCut::scan_bytes;
      oldest = out.events.empty() ? lines.reached() : oldest;
      break;
    }
    if (*step == BackLines::Step::start) {
      // Lines above every event line (a person's): an event of their own.
      if (!more.empty()) {
        LoggedEvent e;
        e.offset = more.front().start;
        if (auto ok = compose(lines, nullptr, 0, more, more_whole - 1, limits.text_bytes, e); !ok) return ok.error();
        if (!take(std::move(e))) {
          out.cut = EventsCut::reply_bytes;
          break;
        }
      }
      oldest = 0;
      break;
    }
    auto head = lines.bytes(l.start, std::min(l.size(), prefix_max));
    if (!head) return head.error();
    LoggedEvent e;
    const std::size_t prefix = event_prefix(*head, e);
    if (!prefix) {
      // Its share of the text: a '\n' and the line without its indent.
      l.share = 1 + l.size() - (head->starts_with(std::string(indent, ' ')) ? indent : 0);
      more.push_front(l);
      more_kept += l.share;
      more_whole += l.share;
      // The lines past what the text can show are not needed.
      while (more.size() > 1 && more_kept - more.back().share >= limits.text_bytes) {
        more_kept -= more.back().share;
        more.pop_back();
      }
      continue;
    }
    e.offset = l.start;
    if (auto ok = compose(lines, &l, prefix, more, l.size() - prefix + more_whole, limits.text_bytes, e); !ok)
      return ok.error();
    if (!take(std::move(e))) {
      out.cut = EventsCut::reply_bytes;
      break;
    }
  }
  out.next_before = oldest;
  std::reverse(out.events.begin(), out.events.end());
  return out;
}

Result<json::object> Repl::events(const std::string& page, std::optional<std::uint64_t> before, std::size_t limit) {
  auto found = find(page);
  if (!found) return found.error();
  const Page& p = **found;
  const std::string& path = p.log->events_path();
  auto opened = ws_.open_read(path);
  if (!opened) return Failure{Error::io, "cannot read " + path + ": " + opened.error().detail};
  const std::uint64_t size = opened->fd ? static_cast<std::uint64_t>(opened->stamp.size) : 0;
  if (before && *before > size)
    return Failure{Error::bad_request, "before " + std::to_string(*before) + " is past the end of " + path +
                                           " (" + std::to_string(size) + " bytes); page from next_before"};
  EventsLimits limits;
  limits.events = std::min(limit, events_reply_max);
  EventsRead read;
  if (opened->fd) {
    auto got = read_events_back(opened->fd.get(), before.value_or(size), limits);
    if (!got) return got.error();
    read = std::move(*got);
  }
  json::array events;
  for (const LoggedEvent& e : read.events) {
    json::object o{{"source", e.source}, {"text", e.text}, {"time", e.time}};
    if (e.truncated) {
      o["truncated"] = true;
      o["text_bytes"] = e.text_bytes;
    }
    events.push_back(std::move(o));
  }
  json::object out{{"page", p.stem}, {"events_log", path}, {"events", std::move(events)}};
  out["next_before"] = read.next_before ? json::value(read.next_before) : json::value(nullptr);
  if (read.cut == EventsCut::reply_bytes) out["cut"] = "reply_bytes";
  else if (read.cut == EventsCut::scan_bytes) out["cut"] = "scan_bytes";
  else if (read.next_before && limit > events_reply_max && read.events.size() == events_reply_max)
    out["cut"] = "max_events";
  // Events the page sent that are not in the log yet: a running job's (the
  // log has them when it ends) and background ones of the last second.
  const std::size_t unlogged = p.background.list().size() + (p.running ? p.running->events.list().size() : 0);
  if (unlogged) out["unlogged"] = unlogged;
  return out;
}

}  // namespace repl
