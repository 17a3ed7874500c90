#include "corpus.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace bench {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOpen = "\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";                               // ««« EDIT
constexpr std::string_view kSep = "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90"  // ═════
                                  "\xE2\x95\x90\xE2\x95\x90 REPL\n";                                // ══ REPL
constexpr std::string_view kClose = "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";                          // »»» EDIT END

// Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + len > n) return false;
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return false;
    for (std::size_t k = 2; k < len; ++k) {
      unsigned char ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xBF) return false;
    }
    i += len;
  }
  return true;
}

bool is_header(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".hpp" || ext == ".ipp";
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::string out(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(out.data(), static_cast<std::streamsize>(out.size())))
    throw std::runtime_error("cannot read " + p.string());
  return out;
}

// FNV-1a, written out so that the picked sites do not depend on the
// standard library's std::hash.
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

std::uint64_t window_key(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return mix(mix(mix(a) ^ b) ^ c);
}

void append_line(std::string& out, std::string_view line) {
  out += line;
  out += '\n';
}

}  // namespace

Source Source::collect(const fs::path& root, std::size_t lines) {
  if (lines == 0) throw std::runtime_error("the corpus needs at least one line");
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    // Symlinks are left out: only regular files, each read once.
    if (it->is_regular_file() && !it->is_symlink() && is_header(it->path())) files.push_back(it->path().string());
  }
  if (ec) throw std::runtime_error("cannot list " + root.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());  // byte-wise, independent of the locale

  Source src;
  src.starts_.push_back(0);
  for (const std::string& f : files) {
    if (src.lines() >= lines) break;
    std::string text = read_all(f);
    if (text.empty()) continue;
    if (text.find('\0') != std::string::npos || text.find('\r') != std::string::npos || !valid_utf8(text) ||
        text.find(kEditMark) != std::string::npos) {
      ++src.files_skipped_;
      continue;
    }
    if (text.back() != '\n') text += '\n';
    if (src.files_used_ == 0) src.first_file_ = f;
    src.last_file_ = f;
    ++src.files_used_;
    const std::size_t base = src.text_.size();
    src.text_ += text;
    for (std::size_t i = 0; i < text.size() && src.lines() < lines; ++i)
      if (text[i] == '\n') src.starts_.push_back(base + i + 1);
  }
  if (src.lines() < lines)
    throw std::runtime_error("the headers under " + root.string() + " hold only " + std::to_string(src.lines()) +
                             " usable lines, fewer than the " + std::to_string(lines) + " asked for");
  src.text_.resize(src.starts_.back());
  return src;
}

std::vector<std::size_t> pick_sites(const Source& src, std::size_t lines, std::size_t count, std::uint64_t seed,
                                    std::size_t spacing) {
  if (count == 0) return {};
  if (lines > src.lines()) throw std::runtime_error("pick_sites: the source is smaller than the case");
  // A site i needs lines i-3 .. i+3: two anchor lines plus one more line of
  // diff context before it, three after.
  if (lines < 7) throw std::runtime_error("pick_sites: a file of fewer than 7 lines has no site");
  const std::size_t lo = 3, hi = lines - 4;  // inclusive
  const std::size_t usable = hi - lo + 1;
  if ((count - 1) * spacing + 1 > usable)
    throw std::runtime_error("cannot place " + std::to_string(count) + " edits " + std::to_string(spacing) +
                             " lines apart in " + std::to_string(lines) + " lines");

  // Which 3-line windows occur once. A hash collision can only make a unique
  // window look repeated, never the other way round.
  std::vector<std::uint64_t> lh(lines);
  for (std::size_t i = 0; i < lines; ++i) lh[i] = fnv1a(src.line(i));
  std::unordered_map<std::uint64_t, std::uint32_t> seen;
  seen.reserve(lines);
  for (std::size_t i = 2; i < lines; ++i) ++seen[window_key(lh[i - 2], lh[i - 1], lh[i])];
  std::vector<char> unique(lines, 0);
  for (std::size_t i = lo; i <= hi; ++i) unique[i] = seen[window_key(lh[i - 2], lh[i - 1], lh[i])] == 1;

  // Uniformly spread positions with the required spacing: sorted offsets
  // into the slack, then k * spacing added (so gaps are >= spacing). The
  // raw draws use the mt19937_64 output directly, which the standard fixes.
  const std::size_t slack = usable - 1 - (count - 1) * spacing;
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> r(count);
  for (std::size_t& v : r) v = static_cast<std::size_t>(rng() % (slack + 1));
  std::sort(r.begin(), r.end());

  // Move each position forward to the next line whose window is unique,
  // keeping the spacing to the previous site.
  std::vector<std::size_t> sites;
  sites.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t want = lo + r[k] + k * spacing;
    if (!sites.empty()) want = std::max(want, sites.back() + spacing);
    while (want <= hi && !unique[want]) ++want;
    if (want > hi)
      throw std::runtime_error("ran out of unique windows after " + std::to_string(k) + " of " +
                               std::to_string(count) + " edits in " + std::to_string(lines) + " lines");
    sites.push_back(want);
  }
  return sites;
}

std::string edited_line(std::string_view line, std::size_t n) {
  std::string out(line);
  out += " /* ";
  out += kEditMark;
  out += ' ';
  out += std::to_string(n);
  out += " */";
  return out;
}

EditCase make_case(const Source& src, std::size_t lines, std::vector<std::size_t> sites, std::string_view path) {
  EditCase c;
  c.lines = lines;
  c.sites = std::move(sites);
  c.original.assign(src.prefix(lines));
  for (std::size_t k = 1; k < c.sites.size(); ++k)
    if (c.sites[k] < c.sites[k - 1] + 3) throw std::runtime_error("make_case: edit windows overlap");

  std::vector<std::string> repl(c.sites.size());
  for (std::size_t k = 0; k < c.sites.size(); ++k) repl[k] = edited_line(src.line(c.sites[k]), k + 1);

  // The expected file.
  c.expected.reserve(c.original.size() + c.sites.size() * 32);
  std::size_t done = 0;  // lines copied so far
  for (std::size_t k = 0; k < c.sites.size(); ++k) {
    const std::size_t s = c.sites[k];
    c.expected.append(src.prefix(s).substr(src.prefix(done).size()));
    append_line(c.expected, repl[k]);
    done = s + 1;
  }
  c.expected.append(std::string_view(c.original).substr(src.prefix(done).size()));

  // The response: one block per edit, each with its path line.
  for (std::size_t k = 0; k < c.sites.size(); ++k) {
    const std::size_t s = c.sites[k];
    c.response += path;
    c.response += '\n';
    c.response += kOpen;
    for (std::size_t i = s - 2; i <= s; ++i) append_line(c.response, src.line(i));
    c.response += kSep;
    append_line(c.response, src.line(s - 2));
    append_line(c.response, src.line(s - 1));
    append_line(c.response, repl[k]);
    c.response += kClose;
    c.response += '\n';
  }

  // The unified diff. Each edit wants lines s-3 .. s+3; edits whose ranges
  // touch or overlap share one hunk, as diff -u would write them. No line
  // count changes, so old and new start lines are equal.
  c.diff += "--- a/";
  c.diff += path;
  c.diff += "\n+++ b/";
  c.diff += path;
  c.diff += '\n';
  std::size_t k = 0;
  while (k < c.sites.size()) {
    const std::size_t first = c.sites[k] >= 3 ? c.sites[k] - 3 : 0;
    std::size_t end = std::min(lines, c.sites[k] + 4);  // exclusive
    std::size_t last_k = k;
    while (last_k + 1 < c.sites.size() && c.sites[last_k + 1] - 3 <= end) {
      ++last_k;
      end = std::min(lines, c.sites[last_k] + 4);
    }
    const std::size_t len = end - first;
    char head[96];
    std::snprintf(head, sizeof head, "@@ -%zu,%zu +%zu,%zu @@\n", first + 1, len, first + 1, len);
    c.diff += head;
    std::size_t next = k;
    for (std::size_t i = first; i < end; ++i) {
      if (next <= last_k && c.sites[next] == i) {
        c.diff += '-';
        append_line(c.diff, src.line(i));
        c.diff += '+';
        append_line(c.diff, repl[next]);
        ++next;
      } else {
        c.diff += ' ';
        append_line(c.diff, src.line(i));
      }
    }
    ++c.hunks;
    k = last_k + 1;
  }
  return c;
}

std::string wrap_as_blocks(const Source& src, std::size_t lines, std::size_t per_block, std::string_view path,
                           std::size_t& blocks) {
  std::string out;
  out.reserve(2 * src.prefix(lines).size() + lines / per_block * 64);
  blocks = 0;
  for (std::size_t first = 0; first + per_block <= lines; first += per_block) {
    out += path;
    out += '\n';
    out += kOpen;
    out.append(src.prefix(first + per_block).substr(src.prefix(first).size()));
    out += kSep;
    out.append(src.prefix(first + per_block - 1).substr(src.prefix(first).size()));
    append_line(out, edited_line(src.line(first + per_block - 1), blocks + 1));
    out += kClose;
    out += '\n';
    ++blocks;
  }
  return out;
}

}  // namespace bench
