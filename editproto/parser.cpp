#include "editproto/parser.hpp"

#include "editproto/path_line.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

namespace editproto {

namespace {
constexpr std::string_view kEdit = "\xC2\xAB\xC2\xAB\xC2\xAB";  // «««
constexpr std::string_view kEnd = "\xC2\xBB\xC2\xBB\xC2\xBB";   // »»»
constexpr std::string_view kBar = "\xE2\x95\x90";               // ═

std::string_view after_spaces(std::string_view s) {
  std::size_t i = 0;
  // Indented code is common: skip runs of eight spaces a word at a time.
  constexpr std::uint64_t kEightSpaces = 0x2020202020202020ull;
  for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (w != kEightSpaces) break;
  }
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}
}  // namespace

// Marker lines are matched after trimming; "═══ REPL" accepts any run of three
// or more '═' because models miscount them.
Parser::Marker Parser::marker_of(std::string_view line) {
  if (line.empty()) return Marker::none;
  unsigned char first = static_cast<unsigned char>(line[0]);
  if (first != ' ' && first != '\t' && first != 0xC2 && first != 0xE2) return Marker::none;
  std::string_view s = after_spaces(line);
  if (s.empty()) return Marker::none;
  unsigned char c = static_cast<unsigned char>(s[0]);
  if (c != 0xC2 && c != 0xE2) return Marker::none;  // fast path: prose and code
  s = trim(s);
  if (s.starts_with(kEdit)) {
    s = after_spaces(s.substr(kEdit.size()));
    return s == "EDIT" ? Marker::edit : Marker::none;
  }
  if (s.starts_with(kEnd)) {
    s = after_spaces(s.substr(kEnd.size()));
    if (!s.starts_with("EDIT")) return Marker::none;
    s = after_spaces(s.substr(4));
    return s == "END" ? Marker::end : Marker::none;
  }
  std::size_t bars = 0;
  while (s.substr(bars * kBar.size()).starts_with(kBar)) ++bars;
  if (bars >= 3 && after_spaces(s.substr(bars * kBar.size())) == "REPL") return Marker::repl;
  return Marker::none;
}

void Parser::feed(std::string_view chunk, std::vector<Block>& out) {
  if (state_ == State::overflow) return;
  if (bytes_ + chunk.size() > limits_.max_response_bytes) {
    std::size_t allowed = limits_.max_response_bytes - bytes_;
    feed(chunk.substr(0, allowed), out);
    std::string detail = "the response is larger than the limit of " +
                         std::to_string(limits_.max_response_bytes) + " bytes; nothing after byte " +
                         std::to_string(limits_.max_response_bytes) + " was read";
    fail_open_block(Reason::too_large, std::move(detail), out);
    state_ = State::overflow;
    return;
  }
  bytes_ += chunk.size();
  // Where the next '«'/'»' (0xC2) or '═' (0xE2) lead byte is: every line
  // before it is plain text and is taken in bulk.
  const char* end = chunk.data() + chunk.size();
  const char* next_lead = nullptr;
  auto find_lead = [&] {
    if (next_lead != nullptr && (next_lead == end || next_lead >= chunk.data())) return next_lead;
    const char* p = chunk.data();
    while (p < end) {
      std::uint64_t w;
      if (p + 8 <= end && (std::memcpy(&w, p, 8), (w & 0x8080808080808080ull) == 0)) {
        p += 8;  // eight ASCII bytes
        continue;
      }
      const unsigned char c = static_cast<unsigned char>(*p);
      if (c == 0xC2 || c == 0xE2) break;
      ++p;
    }
    return next_lead = p;
  };
  while (!chunk.empty()) {
    if (partial_.empty()) {
      const char* stop = find_lead();
      const std::size_t span = static_cast<std::size_t>(stop - chunk.data());
      // Inside a block only long stretches are worth the bulk path.
      const void* last_nl = (state_ == State::scanning || span > 512) ? memrchr(chunk.data(), '\n', span) : nullptr;
      if (last_nl != nullptr) {
        std::size_t safe = static_cast<std::size_t>(static_cast<const char*>(last_nl) - chunk.data()) + 1;
        plain_lines(chunk.substr(0, safe));
        chunk.remove_prefix(safe);
        continue;
      }
    }
    const void* nl = std::memchr(chunk.data(), '\n', chunk.size());
    if (nl == nullptr) {
      partial_.append(chunk);
      break;
    }
    std::size_t len = static_cast<const char*>(nl) - chunk.data();
    if (partial_.empty()) {
      on_line(chunk.substr(0, len), true, out);
    } else {
      partial_.append(chunk.substr(0, len));
      on_line(partial_, false, out);
      partial_.clear();
    }
    chunk.remove_prefix(len + 1);
  }
  own_candidates();
}

// Complete lines none of which can be a marker: inside a block they are its
// lines; outside, they are counted and the last two non-blank ones are
// remembered as path-line candidates.
void Parser::plain_lines(std::string_view text) {
  if (state_ == State::reading_edit || state_ == State::reading_repl) {
    while (!text.empty()) {
      const char* nl = static_cast<const char*>(std::memchr(text.data(), '\n', text.size()));
      std::string_view line = text.substr(0, static_cast<std::size_t>(nl - text.data()));
      text.remove_prefix(line.size() + 1);
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      block_line(line);
    }
    return;
  }
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', text.data() + text.size() - p)));
       ++p)
    ++line_no_;
  // From the end: the last two non-blank lines, and the last one that is not
  // a fence (usually one of those two, so the scan stops at once).
  std::string_view found[2];
  std::size_t found_line[2] = {0, 0};
  int n = 0;
  std::string_view prose;
  std::size_t prose_line = 0;
  std::size_t no = line_no_;
  std::string_view rest = text.substr(0, text.size() - 1);  // drop the final '\n'
  while (n < 2 || prose_line == 0) {
    std::size_t nl = rest.rfind('\n');
    std::string_view line = nl == std::string_view::npos ? rest : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!trim(line).empty()) {
      if (n < 2) {
        found[n] = line;
        found_line[n++] = no;
      }
      if (prose_line == 0 && !is_fence_line(line)) {
        prose = line;
        prose_line = no;
      }
    }
    if (nl == std::string_view::npos) break;
    rest = rest.substr(0, nl);
    --no;
  }
  // A prose line above both candidates is kept first; remembering the
  // candidates (in order) keeps any later one.
  if (prose_line != 0 && (n < 2 || prose_line < found_line[1])) prose_.keep(prose, prose_line, true);
  for (int i = n - 1; i >= 0; --i) remember_candidate(found[i], true, found_line[i]);
}

void Parser::finish(std::vector<Block>& out) {
  if (state_ == State::overflow) return;
  if (!partial_.empty()) {
    on_line(partial_, false, out);
    partial_.clear();
  }
  if (state_ == State::reading_edit || state_ == State::reading_repl) {
    fail_open_block(Reason::incomplete_block,
                    std::string("the response ended before the block's \xC2\xBB\xC2\xBB\xC2\xBB EDIT END line") +
                        (state_ == State::reading_edit ? " (it has no \xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"
                                                         "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL "
                                                         "line either)"
                                                       : "") +
                        "; nothing of it was applied",
                    out);
  }
}

void Parser::Kept::keep(std::string_view t, std::size_t n, bool stable) {
  set = true;
  line = n;
  too_long = t.size() > 512;  // no path line is that long: only its number is kept
  owned = false;
  text = {};
  if (too_long) return;
  text = t;
  if (!stable) own();  // the line's buffer is about to be reused
}

void Parser::Kept::own() {
  if (!set || owned || too_long) return;
  store.assign(text);
  text = store;
  owned = true;
}

void Parser::remember_candidate(std::string_view line, bool stable, std::size_t line_no) {
  std::swap(candidate_[0], candidate_[1]);
  for (Kept& c : candidate_)
    if (c.owned) c.text = c.store;  // a moved string may have moved its bytes
  candidate_[1].keep(line, line_no, stable);
  if (!is_fence_line(line)) prose_.keep(line, line_no, stable);
}

// Views into the chunk die with it: copy the lines still in use.
void Parser::own_candidates() {
  for (Kept& c : candidate_) c.own();
  prose_.own();
}

void Parser::on_line(std::string_view line, bool stable, std::vector<Block>& out) {
  ++line_no_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Most lines cannot be markers: only those starting with white space or
  // the lead byte of '«', '»' or '═' are looked at closely.
  const unsigned char first = line.empty() ? 0 : static_cast<unsigned char>(line[0]);
  const bool maybe_marker = first == ' ' || first == '\t' || first == 0xC2 || first == 0xE2;
  Marker m = maybe_marker ? marker_of(line) : Marker::none;

  switch (state_) {
    case State::overflow:
      return;
    case State::scanning:
      scanning_line(line, m, stable);
      return;
    case State::reading_edit:
    case State::reading_repl:
      break;
  }

  if (m == Marker::edit) {
    cut_open_block(out);
    begin_block(true);
    return;
  }
  if (m == Marker::end) {
    if (state_ == State::reading_edit) {
      block_malformed_ = true;
      malformed_detail_ = "the block has no \xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"
                          "\xE2\x95\x90\xE2\x95\x90 REPL line between \xC2\xAB\xC2\xAB\xC2\xAB EDIT and "
                          "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END (line " +
                          std::to_string(line_no_) + ")";
    }
    emit(out);
    return;
  }
  if (m == Marker::repl) {
    if (state_ == State::reading_repl) {
      if (!block_malformed_) {
        block_malformed_ = true;
        malformed_detail_ = "the block has a second \xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"
                            "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL line at line " +
                            std::to_string(line_no_);
      }
    } else {
      state_ = State::reading_repl;
    }
    return;
  }

  block_line(line);
}

// A line outside any block: an opener starts one; anything else not blank
// may be the next block's path line.
void Parser::scanning_line(std::string_view line, Marker m, bool stable) {
  if (m == Marker::edit) {
    begin_block(false);
  } else if (m == Marker::repl || m == Marker::end) {
    // Scanning, as the protocol's state machine has it, looks only for a
    // path line or an opener: a separator here is quoted text or a lost
    // opener, not a block. It is reported, and it stands between the
    // blocks around it.
    warnings_.push_back({line_no_, WarningCode::stray_marker,
                         std::string("a ") +
                             (m == Marker::repl ? "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"
                                                  "\xE2\x95\x90\xE2\x95\x90 REPL"
                                                : "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END") +
                             " line outside any block is not a block and was ignored (a block starts with "
                             "\xC2\xAB\xC2\xAB\xC2\xAB EDIT, after its path line)"});
    remember_candidate(line, stable, line_no_);
  } else if (!trim(line).empty()) {
    remember_candidate(line, stable, line_no_);
  }
}

// An opener inside an open block: the open block ends here (a failed block,
// or nothing when it was an opener quoted in prose), and its last lines are
// the candidates for the new block's path line.
void Parser::cut_open_block(std::vector<Block>& out) {
  // The new block's path line is the last line of the open one (that is
  // where a model that forgot an END line put it); the open block's own
  // path is never reused.
  candidate_[0].set = candidate_[1].set = prose_.set = false;
  for (std::size_t i = 2 - inner_count_; i < 2; ++i)
    remember_candidate(std::string_view(text_).substr(inner_[i].at, inner_[i].length), false, inner_[i].line);
  prose_.set = false;
  if (state_ == State::reading_edit && block_.parse_error.reason == Reason::missing_path) {
    // No path line and no REPL line before the next opener: an opener
    // quoted in prose, not a block.
    warnings_.push_back({block_.line, WarningCode::stray_marker,
                         "a \xC2\xAB\xC2\xAB\xC2\xAB EDIT line with no path line before it and no "
                         "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 "
                         "REPL line before the next \xC2\xAB\xC2\xAB\xC2\xAB EDIT (line " +
                             std::to_string(line_no_) + ") starts no block and was ignored"});
    next_index_ = block_.index;
    unclosed_line_ = 0;
  } else {
    unclosed_line_ = block_.line;
    fail_open_block(Reason::malformed_block,
                    "the block was not closed: line " + std::to_string(line_no_) +
                        " starts a new \xC2\xAB\xC2\xAB\xC2\xAB EDIT before this block's "
                        "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END",
                    out);
  }
}

void Parser::block_line(std::string_view line) {
  block_bytes_ += line.size() + 1;
  if (block_bytes_ > limits_.max_block_bytes) {
    if (!block_too_large_) {
      block_too_large_ = true;
      inner_count_ = 0;  // its lines are gone
      std::string().swap(text_);
      edit_at_.clear();
      repl_at_.clear();
    }
    return;
  }
  (state_ == State::reading_edit ? edit_at_ : repl_at_).emplace_back(text_.size(), line.size());
  if (!trim(line).empty()) {
    inner_[0] = inner_[1];
    inner_[1] = {text_.size(), line.size(), line_no_};
    if (inner_count_ < 2) ++inner_count_;
  }
  text_.append(line);
}

void Parser::begin_block(bool after_cut) {
  block_ = Block{};
  block_.index = next_index_++;
  block_.line = line_no_;
  block_bytes_ = 0;
  text_.clear();
  edit_at_.clear();
  repl_at_.clear();
  inner_count_ = 0;
  block_too_large_ = false;
  block_malformed_ = false;
  malformed_detail_.clear();

  // The path line is the last non-blank line, or the one before it when the
  // last is a code-fence opener standing between path and block.
  const Kept* path_line = nullptr;
  if (candidate_[1].set) {
    if (candidate_[1].too_long || !is_fence_line(candidate_[1].text)) path_line = &candidate_[1];
    else if (candidate_[0].set && (candidate_[0].too_long || !is_fence_line(candidate_[0].text)))
      path_line = &candidate_[0];
  }
  std::optional<std::string> path;
  bool reused = false;
  if (path_line != nullptr && !path_line->too_long) {
    // Models repeat the same path line block after block: reuse its result.
    if (path_line->text == previous_path_line_ && !previous_path_.empty()) path = previous_path_;
    else path = extract_path(path_line->text);
  } else if (path_line == nullptr && !prose_.set && !after_cut && !previous_path_.empty()) {
    // Nothing but blank lines and code fences since the previous block.
    path = previous_path_;
    reused = true;
  }
  if (path) {
    if (!reused && previous_path_line_ != path_line->text) previous_path_line_.assign(path_line->text);
    block_.path = std::move(*path);
    block_.path_reused = reused;
    previous_path_ = block_.path;
  } else {
    block_.parse_error = {Reason::missing_path, missing_path_detail(path_line, after_cut)};
    // Nothing further back is ever reused.
    previous_path_.clear();
    previous_path_line_.clear();
  }
  candidate_[0].set = candidate_[1].set = prose_.set = false;
  unclosed_line_ = 0;
  state_ = State::reading_edit;
}

namespace {
// A line of the response quoted in a diagnostic.
std::string quoted(std::string_view text) {
  text = trim(text);
  if (text.size() <= 80) return "\"" + std::string(text) + "\"";
  std::size_t cut = 77;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // a whole character
  return "\"" + std::string(text.substr(0, cut)) + "...\"";
}
}  // namespace

std::string Parser::missing_path_detail(const Kept* candidate, bool after_cut) const {
  auto why = [](const Kept& k) -> std::string {
    if (k.too_long) return "line " + std::to_string(k.line) + " is not a path: it is 200 characters or longer";
    const std::string head = "line " + std::to_string(k.line) + ", " + quoted(k.text) + ", ";
    if (marker_of(k.text) != Marker::none) return head + "is a marker line outside any block, not a path";
    PathLine verdict = read_path_line(k.text);
    if (verdict.path) return head + "names a file but is not the line right before the block";
    return head + "is not a path: " + std::string(verdict.why_not);
  };
  std::string d = "no file path for the \xC2\xAB\xC2\xAB\xC2\xAB EDIT at line " + std::to_string(line_no_) + ": ";
  if (candidate != nullptr) d += why(*candidate);
  else if (prose_.set) d += why(prose_);
  else d += "there is no line before it";
  d += ". Put the file's path (e.g. src/main.py) alone on the line before \xC2\xAB\xC2\xAB\xC2\xAB EDIT";
  if (after_cut && unclosed_line_ != 0)
    d += "; the block at line " + std::to_string(unclosed_line_) + " was not closed, so its path is not reused";
  else if (!after_cut && !previous_path_.empty())
    d += "; the previous block's path is reused only when nothing but blank lines and code fences stands between "
         "the two blocks";
  return d;
}

void Parser::fail_open_block(Reason reason, std::string detail, std::vector<Block>& out) {
  if (state_ != State::reading_edit && state_ != State::reading_repl) {
    if (reason != Reason::too_large) return;
    // Overflow outside a block: report it on a block of its own so it is seen.
    Block b;
    b.index = next_index_++;
    b.line = line_no_;
    b.path = previous_path_;
    b.parse_error = {reason, std::move(detail)};
    out.push_back(std::move(b));
    return;
  }
  block_.parse_error = {reason, std::move(detail)};
  out.push_back(std::move(block_));
  block_ = Block{};
  state_ = State::scanning;
}

void Parser::emit(std::vector<Block>& out) {
  if (block_.ok()) {
    if (block_malformed_) {
      block_.parse_error = {Reason::malformed_block, std::move(malformed_detail_)};
    } else if (block_too_large_) {
      block_.parse_error = {Reason::too_large, "the block is larger than the limit of " +
                                                   std::to_string(limits_.max_block_bytes) +
                                                   " bytes; split it into smaller blocks"};
    }
  }
  if (block_.ok()) {
    // One allocation holds the views, then the bytes they point into;
    // text_ keeps its capacity for the next block.
    const std::size_t views = edit_at_.size() + repl_at_.size();
    const std::size_t tail = (text_.size() + sizeof(std::string_view) - 1) / sizeof(std::string_view);
    std::shared_ptr<std::string_view[]> storage = std::make_shared<std::string_view[]>(views + tail);
    char* bytes = reinterpret_cast<char*>(storage.get() + views);
    if (!text_.empty()) std::memcpy(bytes, text_.data(), text_.size());
    std::size_t v = 0;
    for (auto [at, len] : edit_at_) storage[v++] = std::string_view(bytes + at, len);
    for (auto [at, len] : repl_at_) storage[v++] = std::string_view(bytes + at, len);
    block_.edit = std::span<const std::string_view>(storage.get(), edit_at_.size());
    block_.repl = std::span<const std::string_view>(storage.get() + edit_at_.size(), repl_at_.size());
    block_.storage = std::move(storage);
  }
  text_.clear();
  out.push_back(std::move(block_));
  block_ = Block{};
  state_ = State::scanning;
}

}  // namespace editproto
