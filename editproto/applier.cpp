#include "editproto/applier.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/path_line.hpp"
#include "editproto/placeholder.hpp"
#include "editproto/text_file.hpp"
#include "editproto/unicode.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace editproto {

namespace {

std::size_t common_prefix(std::span<const std::string_view> a, std::span<const std::string_view> b) {
  std::size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return k;
}

std::size_t common_suffix(std::span<const std::string_view> a, std::span<const std::string_view> b, std::size_t skip) {
  std::size_t s = 0;
  while (s + skip < a.size() && s + skip < b.size() && a[a.size() - 1 - s] == b[b.size() - 1 - s]) ++s;
  return s;
}

bool blank(std::string_view s) { return trim(s).empty(); }

// How many non-blank lines of `from` are not matched, one for one, by a line
// of `by` (a multiset difference, linear in both).
std::size_t unmatched(std::span<const std::string_view> from, std::span<const std::string_view> by) {
  std::unordered_map<std::string_view, std::size_t> have;
  for (std::string_view l : by) ++have[l];
  std::size_t n = 0;
  for (std::string_view l : from) {
    if (blank(l)) continue;
    auto it = have.find(l);
    if (it != have.end() && it->second > 0) --it->second;
    else ++n;
  }
  return n;
}

// A REPL line that stands for code refuses the block only when applying it
// would really drop lines of the file: some line the block replaces is not
// written back (for a bare "...", which is code in Python, only when the
// block drops more lines than it writes).
std::optional<std::string> refuse_placeholder(const Block& block) {
  const std::size_t k = common_prefix(block.edit, block.repl);
  const std::size_t s = common_suffix(block.edit, block.repl, k);
  std::optional<std::size_t> first;
  bool elision = false;
  for (std::size_t i = k; i < block.repl.size(); ++i) {
    const Placeholder kind = placeholder_kind(block.repl[i]);
    if (kind == Placeholder::none) continue;
    if (std::find(block.edit.begin(), block.edit.end(), block.repl[i]) != block.edit.end()) continue;  // in the file
    if (!first) first = i;
    elision |= kind == Placeholder::elision;
  }
  if (!first) return std::nullopt;
  const auto old_lines = block.edit.subspan(k, block.edit.size() - k - s);
  const auto new_lines = block.repl.subspan(k, block.repl.size() - k - s);
  const std::size_t dropped = unmatched(old_lines, new_lines);
  const std::size_t added = unmatched(new_lines, old_lines);
  if (dropped == 0 || (!elision && dropped <= added)) return std::nullopt;
  return "REPL line " + std::to_string(*first + 1) + " \"" + std::string(block.repl[*first]) +
         "\" stands for code instead of being code; applying the block would delete " +
         std::to_string(dropped) + (dropped == 1 ? " line" : " lines") +
         " of the file that the REPL section does not write back. Write out every line the REPL section should "
         "contain.";
}

// The first line of an EDIT section that stands for code and that the file
// does not have (white space aside): the section was not copied from the file.
std::optional<std::size_t> placeholder_not_in_file(std::span<const std::string_view> edit,
                                                   const std::vector<std::string_view>& file) {
  std::unordered_set<std::string_view> wanted;
  for (std::string_view l : edit)
    if (is_placeholder_line(l)) wanted.insert(trim(l));
  if (wanted.empty()) return std::nullopt;
  std::unordered_set<std::string_view> present;
  for (std::string_view l : file)
    if (wanted.count(trim(l))) present.insert(trim(l));
  for (std::size_t i = 0; i < edit.size(); ++i)
    if (is_placeholder_line(edit[i]) && !present.count(trim(edit[i]))) return i;
  return std::nullopt;
}

Status status_for(Reason r) {
  switch (r) {
    case Reason::path_escape:
    case Reason::protected_path:
    case Reason::binary:
    case Reason::encoding:
    case Reason::no_change:
      return Status::skipped;
    case Reason::not_in_context:
      return Status::not_in_context;
    default:
      return Status::failed;
  }
}

void set_failure(BlockResult& r, Failure f) {
  r.status = status_for(f.reason);
  r.reason = f.reason;
  r.diagnostic = std::move(f.detail);
}

}  // namespace

Applier::Applier(const Workspace& workspace, Options options) : ws_(workspace), opt_(std::move(options)) {
  if (opt_.context)
    for (const std::string& c : *opt_.context)
      if (auto n = ws_.normalize(c)) context_.insert(*n);
}

bool Applier::in_context(const std::string& path) const { return context_.count(path) != 0; }

void Applier::load(File& f, FileContent content) {
  f.stamp = content.stamp;
  f.written.clear();
  f.has_written = false;
  f.unusable.reset();
  f.doc.reset();
  f.dirty = false;
  if (!f.base_fixed) f.base.reset();
  if (!content.stamp.exists) return;
  if (auto refused = not_text(f.path, content.bytes)) {
    f.unusable = std::move(*refused);
    return;
  }
  f.doc.emplace(std::move(content.bytes));
  if (!f.base_fixed) f.base = f.doc->shared_original();
  if (auto hint = hints_.find(f.path); hint != hints_.end()) f.doc->prepare(hint->second);
}

bool Applier::unchanged(const File& f, std::string_view fresh) const {
  if (!f.has_written) return fresh == (f.doc ? std::string_view(f.doc->original()) : std::string_view());
  for (std::string_view c : f.written) {
    if (fresh.substr(0, c.size()) != c) return false;
    fresh.remove_prefix(c.size());
  }
  return fresh.empty();
}

const Outcome<std::string>& Applier::resolve(const std::string& normal) {
  auto it = resolved_.find(normal);
  if (it == resolved_.end()) it = resolved_.emplace(normal, ws_.resolve(normal)).first;
  return it->second;
}

void Applier::prepare(std::span<const Block> blocks) {
  for (const Block& b : blocks) {
    if (!b.ok() || b.edit.empty()) continue;
    auto normal = ws_.normalize(b.path);
    if (!normal) continue;
    const auto& real = resolve(*normal);
    if (!real) continue;
    auto& lines = hints_[*real];
    lines.insert(lines.end(), b.edit.begin(), b.edit.end());
    hint_text_.push_back(b.storage);
  }
}

Outcome<Applier::File*> Applier::open(const std::string& real) {
  auto it = files_.find(real);
  if (it != files_.end()) {
    File& f = it->second;
    if (f.dirty) return &f;
    // Cached from an earlier flush: reuse it unless the disk moved on.
    auto st = ws_.stat(real);
    if (!st) return st.error();
    if (*st == f.stamp) return &f;
  }
  auto content = ws_.read(real, opt_.limits.max_file_bytes);
  if (!content) return content.error();
  File& f = files_[real];
  f.path = real;
  load(f, std::move(*content));
  return &f;
}

void Applier::submit(const Block& block) {
  Pending& p = pending_.emplace_back();
  p.block = block;
  BlockResult& r = p.result;
  r.index = block.index;
  r.block_line = block.line;
  r.path = block.path;
  r.path_reused = block.path_reused;
  if (!block.ok()) {
    return set_failure(r, block.parse_error);  // every parse reason maps to failed
  }
  auto normal = ws_.normalize(block.path);
  if (!normal) return set_failure(r, normal.error());
  r.path = *normal;

  const bool create = block.edit.empty();
  if (!create && opt_.context && !in_context(r.path)) {
    if (std::find(auto_added_.begin(), auto_added_.end(), r.path) == auto_added_.end())
      auto_added_.push_back(r.path);
    return set_failure(r, {Reason::not_in_context,
                           r.path + " is not among the files you have seen, so the block was not attempted; it "
                                    "has been added to your context: edit it again once you have its content"});
  }
  if (opt_.context && create) context_.insert(r.path);  // the agent knows what it created

  if (!create && std::ranges::equal(block.edit, block.repl))
    return set_failure(r, {Reason::no_change, "the EDIT and REPL sections are identical, so there is nothing to change"});

  if (!create && opt_.check_placeholders) {
    if (auto refused = refuse_placeholder(block)) {
      r.line = std::nullopt;
      return set_failure(r, {Reason::placeholder, std::move(*refused)});
    }
  }

  const auto& real = resolve(r.path);
  if (!real) return set_failure(r, real.error());
  auto file = open(*real);
  if (!file) return set_failure(r, file.error());
  p.file = *file;
  p.file->attempts.push_back(pending_.size() - 1);
  attempt(*p.file, p);
}

void Applier::attempt(File& f, Pending& p) {
  const Block& b = p.block;
  BlockResult& r = p.result;
  if (b.edit.empty()) {
    if (f.doc || f.unusable)
      return set_failure(r, {Reason::file_exists,
                             r.path + " already exists" +
                                 (f.doc ? " (" + std::to_string(f.doc->size()) + (f.doc->size() == 1 ? " line)" : " lines)") : "") +
                                 "; a block with an empty EDIT section only creates new files. To change it, put "
                                 "the lines to replace in the EDIT section."});
    f.doc.emplace(std::string());
    f.doc->replace(0, 0, b.repl, Eol::lf, Eol::lf);
    f.dirty = true;
    r.status = Status::applied;
    r.reason = Reason::none;
    r.line = 1;
    r.lines_added = b.repl.size();
    r.diagnostic = "created " + r.path + " (" + std::to_string(b.repl.size()) + (b.repl.size() == 1 ? " line)" : " lines)");
    return;
  }
  if (f.unusable) return set_failure(r, *f.unusable);
  if (!f.doc)
    return set_failure(r, {Reason::file_not_found, r.path + " does not exist. To create it, leave the EDIT section "
                                                            "empty and put the whole file in the REPL section."});
  Document& d = *f.doc;
  std::vector<std::size_t> hits = d.find(b.edit);
  if (hits.size() == 1) return apply_at(f, p, hits[0], false);
  if (hits.size() > 1) {
    r.line = hits[0] + 1;
    return set_failure(r, {Reason::ambiguous, describe_ambiguous(hits, b.edit.size(), r.path)});
  }
  std::size_t anchor = common_prefix(b.edit, b.repl);
  const std::vector<std::string_view> lines = d.lines();
  Mismatch m = diagnose_missing(lines, b.edit, anchor, r.path, opt_.option_syntax);
  if (opt_.check_placeholders) {
    if (std::optional<std::size_t> at = placeholder_not_in_file(b.edit, lines)) {
      r.line = m.line;
      return set_failure(r, {Reason::placeholder,
                             "EDIT line " + std::to_string(*at + 1) + " \"" + std::string(b.edit[*at]) +
                                 "\" stands for lines of the file instead of quoting them (the file has no such "
                                 "line): the EDIT section must quote the real lines, every one of them, exactly as "
                                 "the file has them.\n" +
                                 m.diagnostic});
    }
  }
  if (opt_.fuzz_whitespace && m.whitespace_match) {
    apply_at(f, p, *m.whitespace_match, true);
    r.tolerance = "whitespace";
    r.diagnostic = "applied with " + option_named(opt_.option_syntax, "fuzz", "whitespace") + ": " + m.diagnostic;
    return;
  }
  r.line = m.line;
  set_failure(r, {m.reason, std::move(m.diagnostic)});
}

void Applier::apply_at(File& f, Pending& p, std::size_t start, bool tolerant) {
  const Block& b = p.block;
  BlockResult& r = p.result;
  Document& d = *f.doc;
  const std::size_t k = common_prefix(b.edit, b.repl);
  const std::size_t s = common_suffix(b.edit, b.repl, k);
  const std::size_t first = start + k;
  const std::size_t old_count = b.edit.size() - k - s;
  std::vector<std::string_view> lines(b.repl.begin() + static_cast<std::ptrdiff_t>(k),
                                      b.repl.end() - static_cast<std::ptrdiff_t>(s));
  std::vector<std::string> reindented;  // owns the lines when --fuzz rewrites their indent

  if (tolerant) {
    // Keep the file's indentation: each indent the block used for a matched
    // line maps to the file's indent there; new lines take the mapping of the
    // longest block indent that starts them.
    std::vector<std::pair<std::string, std::string>> map;
    for (std::size_t i = 0; i < b.edit.size(); ++i) {
      if (b.edit[i].find_first_not_of(" \t") == std::string::npos) continue;
      std::string from(leading_ws(b.edit[i]));
      if (std::none_of(map.begin(), map.end(), [&](const auto& m) { return m.first == from; }))
        map.emplace_back(from, std::string(leading_ws(d.line(start + i))));
    }
    std::sort(map.begin(), map.end(), [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
    for (std::string_view l : lines) {
      std::string& out = reindented.emplace_back(l);
      if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
      for (const auto& [from, to] : map)
        if (l.starts_with(from)) {
          out = to + std::string(l.substr(from.size()));
          break;
        }
    }
    lines.assign(reindented.begin(), reindented.end());
  }

  // New lines take the file's dominant ending, unless the lines on both
  // sides of them (the one before and the one after the replaced lines)
  // agree on another: a stray LF line in a CRLF file does not make the
  // lines inserted after it LF, but a stretch of LF lines keeps its own.
  const Eol dom = d.dominant_eol();
  const std::size_t after = first + old_count;
  Eol eol = dom;
  if (first > 0 && after < d.size() && d.eol(first - 1) == d.eol(after) && d.eol(after) != Eol::none)
    eol = d.eol(after);
  Eol last = eol;
  bool strip_prev = false;
  if (old_count > 0) {
    if (d.eol(after - 1) == Eol::none) {  // the replaced lines ended the file without a newline: so do the new
      last = Eol::none;
      if (lines.empty() && first > 0) strip_prev = true;
    }
  } else if (first > 0 && d.eol(first - 1) == Eol::none) {  // appending after a last line without newline
    d.set_eol(first - 1, eol);
    last = Eol::none;
  }
  d.replace(first, old_count, lines, eol, last);
  if (strip_prev) d.set_eol(first - 1, Eol::none);

  f.dirty = true;
  r.status = Status::applied;
  r.reason = Reason::none;
  r.line = start + 1;
  r.lines_removed = old_count;
  r.lines_added = lines.size();
  r.diagnostic.clear();
}

void Applier::rebase(File& f, FileContent fresh) {
  load(f, std::move(fresh));
  for (std::size_t idx : f.attempts) {
    Pending& p = pending_[idx];
    BlockResult& r = p.result;
    r.status = Status::failed;
    r.reason = Reason::none;
    r.line.reset();
    r.tolerance.reset();
    r.lines_removed = r.lines_added = 0;
    r.diagnostic.clear();
    attempt(f, p);
    const std::string note = f.path + " changed on disk after it was read; ";
    if (r.status == Status::applied)
      r.diagnostic = note + "the block was applied again to its new content" +
                     (r.diagnostic.empty() ? "" : ": " + r.diagnostic);
    else
      r.diagnostic = note + "on its new content the block no longer applies: " + r.diagnostic;
  }
}

std::vector<BlockResult> Applier::flush() {
  for (auto& entry : files_) {
    File& f = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
    if (!f.dirty) {
      f.attempts.clear();
      continue;
    }
    if (opt_.before_write) opt_.before_write(f.path);
    auto fail_applied = [&](const Failure& why) {
      for (std::size_t idx : f.attempts) {
        BlockResult& r = pending_[idx].result;
        if (r.status == Status::applied) set_failure(r, why);
      }
    };
    // After a failed write, forget the in-memory changes: the next block
    // starts from the disk.
    auto reload = [&] {
      if (auto again = ws_.read(f.path, opt_.limits.max_file_bytes)) load(f, std::move(*again));
    };
    if (!opt_.dry_run) {
      const std::size_t slash = f.path.rfind('/');
      if (cleaned_.insert(slash == std::string::npos ? std::string() : f.path.substr(0, slash)).second)
        ws_.clean_leftovers(f.path);
    }
    // Each round writes the file only if it is still what the blocks were
    // applied to; when someone changed it, the blocks are applied again to
    // what is there now (a rebase) and the next round tries that.
    for (int round = 0; f.dirty && f.doc; ++round) {
      const std::size_t size = f.doc->byte_size();
      if (size > opt_.limits.max_file_bytes) {
        fail_applied({Reason::too_large, f.path + " would grow to " + std::to_string(size) +
                                             " bytes, over the limit of " +
                                             std::to_string(opt_.limits.max_file_bytes) + " bytes"});
        reload();
        break;
      }
      if (opt_.dry_run) break;
      if (round == kMaxWriteRounds) {
        fail_applied({Reason::io_error, f.path + " kept changing while the edits were written (" +
                                            std::to_string(kMaxWriteRounds) +
                                            " times); it was left as the other writer saved it"});
        reload();
        break;
      }
      std::vector<std::string_view> bytes = f.doc->chunks();
      if (opt_.on_write) opt_.on_write(f.path, f.base.get(), bytes);
      auto written = ws_.replace(f.path, bytes, f.stamp, [&](std::string_view fresh) { return unchanged(f, fresh); },
                                 opt_.limits.max_file_bytes);
      if (!written) {
        fail_applied(written.error());
        reload();
        break;
      }
      if (written->changed) {
        rebase(f, std::move(*written->changed));
        continue;
      }
      f.stamp = written->stamp;
      f.written = std::move(bytes);
      f.has_written = true;
      f.base_fixed = true;
      f.changed = true;
      if (std::find(written_.begin(), written_.end(), f.path) == written_.end()) written_.push_back(f.path);
      break;
    }
    f.dirty = false;
    f.attempts.clear();
  }
  std::vector<BlockResult> out;
  out.reserve(pending_.size());
  for (Pending& p : pending_) {
    if (opt_.dry_run && p.result.status == Status::applied) p.result.status = Status::validated;
    out.push_back(std::move(p.result));
  }
  pending_.clear();
  return out;
}

std::vector<FileChange> Applier::take_changes() {
  std::vector<FileChange> out;
  for (const std::string& path : written_) {
    File& f = files_.at(path);
    if (!f.changed || !f.has_written) continue;
    out.push_back({path, f.base, f.written});
    std::string now;
    for (std::string_view c : f.written) now += c;
    f.base = std::make_shared<const std::string>(std::move(now));
    // Until the next write, a fresh read moves the base: if someone else
    // changed the file after this commit, that change is theirs, not ours.
    f.base_fixed = false;
    f.changed = false;
  }
  return out;
}

}  // namespace editproto
