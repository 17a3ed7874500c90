#include "repl/chatlog.hpp"

#include "editproto/block.hpp"
#include "editproto/applier.hpp"
#include "editproto/unicode.hpp"
#include "repl/log.hpp"

#include <algorithm>

namespace repl {

namespace {

constexpr std::size_t max_log_bytes = 64u << 20;

std::size_t occurrences(const Lines& lines, std::size_t from) {
  const std::size_t k = lines.size() - from;
  std::size_t n = 0;
  for (std::size_t i = 0; i + k <= lines.size(); ++i)
    if (std::equal(lines.begin() + static_cast<std::ptrdiff_t>(from), lines.end(),
                   lines.begin() + static_cast<std::ptrdiff_t>(i)))
      ++n;
  return n;
}

// The log's lines as the edit engine sees them, so anchors taken from them
// match: no byte-order mark, and "\r" dropped only before a "\n" (a last
// line without one keeps it, as the engine keeps it).
Lines engine_lines(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Lines lines = split_lines(text);
  const std::size_t ended = text.ends_with('\n') ? lines.size() : lines.size() - (lines.empty() ? 0 : 1);
  for (std::size_t i = 0; i < ended; ++i)
    if (!lines[i].empty() && lines[i].back() == '\r') lines[i].pop_back();
  return lines;
}

// Text the in-place way may start from: text the engine edits (UTF-8, no
// NUL byte), of LF lines only (no CR anywhere, no byte-order mark) with its
// last line ended, so lines joined with LF are its bytes, as the engine
// would write them.
bool plain(std::string_view text) {
  return !text.starts_with("\xEF\xBB\xBF") && text.find('\r') == std::string_view::npos &&
         text.find('\0') == std::string_view::npos && (text.empty() || text.back() == '\n') &&
         editproto::unicode::find_invalid_utf8(text) == std::string_view::npos;
}

std::string joined(const Lines& lines) {
  std::string out;
  for (const std::string& l : lines) (out += l) += '\n';
  return out;
}

// Where the whole lines `lines` (joined) last occur in `text`, or npos.
std::size_t last_lines(std::string_view text, std::string_view lines) {
  std::size_t at = text.rfind(lines);
  while (at != std::string_view::npos && at != 0 && text[at - 1] != '\n')
    at = text.rfind(lines, at - 1);
  return at;
}

// FNV-1a, 64 bits: `state` carried on over `bytes`. A head's checksum
// tells bytes changed by accident or by another writer's save from the
// ones the gateway wrote; it is no defence against a crafted collision,
// which could only misplace bytes in the REPL's history.
constexpr std::uint64_t sum_start = 0xcbf29ce484222325ull;
std::uint64_t sum_of(std::string_view bytes, std::uint64_t state = sum_start) {
  for (unsigned char c : bytes) state = (state ^ c) * 0x100000001b3ull;
  return state;
}

}  // namespace

std::optional<std::string> whole_text(const FileChange& change, const Head& head, const std::string& text) {
  if (head.bytes == 0) return text;
  if (!change.ws) return std::nullopt;
  // Only the head's bytes: the descriptor is open for that read alone (an
  // in-place write meanwhile would find its lease refused).
  std::string out(head.bytes, '\0');
  if (!change.ws->read_start(change.path, out) || sum_of(out) != head.sum) {
    if (change.stale) *change.stale = true;
    return std::nullopt;
  }
  out += text;
  return out;
}

Head ChatLog::head() const { return Head{at_, head_sum_}; }

bool ChatLog::is_known(std::string_view text) const {
  return text.size() == size() && text.substr(at_) == *tail_ && sum_of(text.substr(0, at_)) == head_sum_;
}

std::optional<std::string> ChatLog::known_in(std::string_view found) const {
  if (found.size() < at_ || sum_of(found.substr(0, at_)) != head_sum_) return std::nullopt;
  std::string out;
  out.reserve(size());
  out.append(found.substr(0, at_)).append(*tail_);
  return out;
}

void ChatLog::set_known(std::string text) {
  known_plain_ = plain(text);
  at_ = 0;
  head_sum_ = sum_start;
  tail_ = std::make_shared<const std::string>(std::move(text));
  slide();
}

void ChatLog::slide() {
  const std::string& t = *tail_;
  if (t.size() <= 2 * keep_bytes) return;
  const std::size_t end = t.find('\n', t.size() - keep_bytes);
  if (end == std::string::npos || end + 1 >= t.size()) return;  // one long last line: kept whole
  head_sum_ = sum_of(std::string_view(t).substr(0, end + 1), head_sum_);
  at_ += end + 1;
  tail_ = std::make_shared<const std::string>(t.substr(end + 1));
}

void ChatLog::wrote(Text tail) {
  tail_ = std::move(tail);
  slide();
  if (on_written) on_written();
}

std::optional<FileChange> ChatLog::write_in_place(std::size_t from, std::size_t to, std::string_view with) {
  const std::string& text = *tail_;
  if (!journal_ || !known_plain_ || size() == 0 || stale_->exchange(false)) return std::nullopt;
  // What the engine's way would refuse, it refuses, and says why.
  if (with.find('\r') != std::string_view::npos || with.find('\0') != std::string_view::npos ||
      editproto::unicode::find_invalid_utf8(with) != std::string_view::npos)
    return std::nullopt;
  if (size() - (to - from) + with.size() > max_log_bytes) return std::nullopt;
  std::string now;
  now.reserve(text.size() - (to - from) + with.size());
  now.append(text, 0, from).append(with).append(text, to);
  // From the line end before the change: the bytes checked in the file are
  // the lines matched and everything after them. Never before the tail:
  // the head's bytes stay as they are, so a text waiting for its commit
  // can read its head from the file.
  const std::size_t start = from > 0 ? from - 1 : 0;
  const std::string_view old_tail = std::string_view(text).substr(start), new_tail = std::string_view(now).substr(start);
  if (old_tail.size() + new_tail.size() > TailJournal::max_record_bytes) return std::nullopt;
  auto written = ws_.write_tail(path_, at_ + start, old_tail, new_tail, [&] {
    if (auto r = journal_->record(path_, at_ + start, old_tail, new_tail); !r)
      log_line(path_ + ": written in place without its journal record: " + r.error().message);
  });
  if (!written || written->outcome != editproto::Workspace::Tail::written) return std::nullopt;
  FileChange out(path_, tail_, std::make_shared<const std::string>(std::move(now)));
  out.before_head = out.after_head = head();
  out.ws = &ws_;
  out.stale = stale_;
  wrote(out.after);
  return out;
}

Result<std::optional<std::string>> ChatLog::read() const {
  auto content = ws_.read(path_, max_log_bytes);
  if (!content) return Failure{Error::io, path_ + ": " + content.error().detail};
  if (!content->stamp.exists) return std::optional<std::string>();
  return std::optional<std::string>(std::move(content->bytes));
}

Result<FileChange> ChatLog::create(const Lines& lines) { return apply({}, lines); }

void ChatLog::create_later(const Lines& lines) {
  later_ = lines;
  set_known(joined(lines));
}

Result<FileChange> ChatLog::created_with(const std::function<Result<FileChange>()>& write) {
  Lines lines = std::move(*later_);
  later_.reset();
  set_known({});
  auto made = create(lines);
  if (!made) return made.error();
  auto done = write();
  if (!done) return done.error();  // the new file waits for the log's next commit
  done->before = nullptr;  // one change: the new file
  done->before_head = {};
  return done;
}

Result<FileChange> ChatLog::replace(const Lines& old_lines, const Lines& new_lines, bool blank_after) {
  if (later_) return created_with([&] { return replace(old_lines, new_lines, blank_after); });
  if (old_lines.empty()) return Failure{Error::log_conflict, "nothing to anchor the edit of " + path_ + " on"};
  if (known_plain_) {
    const std::string old_text = joined(old_lines);
    // In the tail (from its first line: its start is a line's start).
    if (const std::size_t at = last_lines(*tail_, old_text); at != std::string::npos) {
      const std::size_t end = at + old_text.size();
      std::string with = joined(new_lines);
      if (blank_after && end < tail_->size() && (*tail_)[end] != '\n') with += '\n';
      if (auto done = write_in_place(at, end, with)) return std::move(*done);
    }
  }
  auto now = read();
  if (!now) return now.error();
  if (!*now) return Failure{Error::log_conflict, path_ + " is gone"};
  const Lines current = engine_lines(**now);
  // The newest occurrence: the same request may be in a log twice (one
  // agent, one second, one code), and the gateway's text is at the end. The
  // anchor takes the lines after it to the end of the file, and as many
  // before it as make it unique.
  auto last = std::find_end(current.begin(), current.end(), old_lines.begin(), old_lines.end());
  if (last == current.end()) return apply(old_lines, new_lines);  // the engine says what is wrong
  auto end = last + static_cast<std::ptrdiff_t>(old_lines.size());
  auto from = last;
  auto count = [&](auto first) {
    std::size_t n = 0;
    for (auto it = current.begin(); (it = std::search(it, current.end(), first, end)) != current.end(); ++it) ++n;
    return n;
  };
  while (from != current.begin() && count(from) > 1) --from;
  Lines before(from, last), after(end, current.end());
  Lines old_anchor = before, new_anchor = before;
  old_anchor.insert(old_anchor.end(), current.begin() + (last - current.begin()), end);
  old_anchor.insert(old_anchor.end(), after.begin(), after.end());
  new_anchor.insert(new_anchor.end(), new_lines.begin(), new_lines.end());
  if (blank_after && !after.empty() && !after.front().empty()) new_anchor.emplace_back();
  new_anchor.insert(new_anchor.end(), after.begin(), after.end());
  return apply(old_anchor, new_anchor);
}

Result<FileChange> ChatLog::append(const Lines& lines) {
  if (later_) return created_with([&] { return append(lines); });
  if (auto done = write_in_place(tail_->size(), tail_->size(), joined(lines))) return std::move(*done);
  auto now = read();
  if (!now) return now.error();
  if (!*now) return Failure{Error::log_conflict, path_ + " is gone"};
  const Lines current = engine_lines(**now);
  if (current.empty()) return Failure{Error::log_conflict, path_ + " is empty: there is nothing to append to"};
  // The shortest run of last lines that occurs once is the anchor.
  std::size_t from = current.size() - 1;
  while (from > 0 && occurrences(current, from) != 1) --from;
  Lines anchor(current.begin() + static_cast<std::ptrdiff_t>(from), current.end());
  Lines replacement = anchor;
  replacement.insert(replacement.end(), lines.begin(), lines.end());
  return apply(anchor, replacement);
}

Result<FileChange> ChatLog::apply(const Lines& old_lines, const Lines& new_lines) {
  editproto::Options opt;
  opt.dry_run = false;
  opt.check_placeholders = false;  // page output may hold a lone "..."
  editproto::Applier applier(ws_, opt);
  applier.submit(editproto::make_block(path_, old_lines, new_lines));
  std::vector<editproto::BlockResult> results = applier.flush();
  if (results.empty() || results.front().status != editproto::Status::applied) {
    std::string why = results.empty() ? "no result" : results.front().diagnostic;
    return Failure{Error::log_conflict, path_ + ": " + why};
  }
  std::vector<editproto::FileChange> changes = applier.take_changes();
  if (changes.empty()) return Failure{Error::io, path_ + ": the edit wrote nothing"};
  FileChange out;
  out.path = changes.front().path;
  out.ws = &ws_;
  out.stale = stale_;
  static const std::string none;
  const std::string& found = changes.front().before ? *changes.front().before : none;
  if (size() > 0 && is_known(found)) {
    // What the gateway wrote last: its tail, not the whole text.
    out.before = tail_;
    out.before_head = head();
  } else {
    if (changes.front().before) out.before = std::make_shared<const std::string>(found);
    if (size() > 0) {
      if (unseen_)
        unseen_->found = found;
      else
        unseen_ = Unseen{known_in(found), found};
    }
  }
  std::string after;
  for (std::string_view piece : changes.front().after) after += piece;
  set_known(std::move(after));
  out.after = tail_;
  out.after_head = head();
  if (on_written) on_written();
  return out;
}

}  // namespace repl
