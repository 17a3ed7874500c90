#include "git/index_image.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

namespace editgit::detail {

namespace {

constexpr std::size_t kHeader = 12;
constexpr std::size_t kTrailer = 20;  // SHA-1 of everything before it
constexpr std::size_t kFixed = 62;    // stat data, mode, id and flags of an entry
constexpr std::uint16_t kExtended = 0x4000;
constexpr std::uint16_t kNameMask = 0x0FFF;

std::uint32_t be32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) | (std::uint32_t{u[2]} << 8) | u[3];
}
std::uint16_t be16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint16_t>((u[0] << 8) | u[1]);
}
void put32(std::string& out, std::uint32_t v) {
  const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.append(b, 4);
}
void put16(std::string& out, std::uint16_t v) {
  const char b[2] = {char(v >> 8), char(v)};
  out.append(b, 2);
}

Failure corrupt(const std::string& why) { return {Error::internal, "the index cannot be read: " + why}; }

// git's varint (varint.c): big-endian groups of 7 bits, each continuation adding one.
bool decode_varint(const char*& p, const char* end, std::uint64_t& out) {
  if (p >= end) return false;
  auto c = static_cast<unsigned char>(*p++);
  std::uint64_t v = c & 127;
  while (c & 128) {
    if (p >= end || v >= (std::uint64_t{1} << 56)) return false;
    c = static_cast<unsigned char>(*p++);
    v = ((v + 1) << 7) | (c & 127);
  }
  out = v;
  return true;
}
void encode_varint(std::string& out, std::uint64_t v) {
  char buf[16];
  unsigned pos = sizeof buf - 1;
  buf[pos] = static_cast<char>(v & 127);
  while (v >>= 7) buf[--pos] = static_cast<char>(128 | (--v & 127));
  out.append(buf + pos, sizeof buf - pos);
}

// An entry's path after its fixed part: padded to 8 bytes (versions 2, 3),
// or relative to the previous path (version 4).
void put_path(std::string& out, unsigned version, std::string_view path, std::string_view prev, std::size_t fixed) {
  if (version < 4) {
    out.append(path);
    out.append(8 - (fixed + path.size()) % 8, '\0');
    return;
  }
  std::size_t common = 0;
  while (common < prev.size() && common < path.size() && prev[common] == path[common]) ++common;
  encode_varint(out, prev.size() - common);
  out.append(path.substr(common));
  out.push_back('\0');
}

void put_entry(std::string& out, unsigned version, const git_index_entry& e, std::string_view path,
               std::string_view prev) {
  for (std::uint32_t v : {std::uint32_t(e.ctime.seconds), e.ctime.nanoseconds, std::uint32_t(e.mtime.seconds),
                          e.mtime.nanoseconds, e.dev, e.ino, e.mode, e.uid, e.gid, e.file_size})
    put32(out, v);
  out.append(reinterpret_cast<const char*>(e.id.id), GIT_OID_RAWSZ);
  put16(out, static_cast<std::uint16_t>(std::min<std::size_t>(path.size(), kNameMask)));
  put_path(out, version, path, prev, kFixed);
}

// The cache-tree extension with every folder above (or at) one of `paths`
// marked invalid (entry count -1, no id), as git does when it adds a path.
// Node by node, in the order git writes them; false when malformed.
bool rewrite_tree(const char*& p, const char* end, const std::vector<std::string_view>& paths, std::string& out,
                  int depth) {
  if (depth > 4096) return false;
  const char* nul = static_cast<const char*>(std::memchr(p, '\0', end - p));
  if (!nul) return false;
  const char* nl = static_cast<const char*>(std::memchr(nul, '\n', end - nul));
  if (!nl) return false;
  const std::string_view counts(nul + 1, nl - nul - 1);
  const std::size_t space = counts.find(' ');
  if (space == std::string_view::npos) return false;
  const bool valid = counts[0] != '-';
  long subtrees = 0;
  for (char c : counts.substr(space + 1)) {
    if (c < '0' || c > '9' || subtrees > 1'000'000) return false;
    subtrees = subtrees * 10 + (c - '0');
  }
  const char* next = nl + 1 + (valid ? GIT_OID_RAWSZ : 0);
  if (next > end) return false;
  if (paths.empty())
    out.append(p, next);
  else {
    out.append(p, nul + 1);
    out.append("-1 ");
    out.append(counts.substr(space + 1));
    out.push_back('\n');
  }
  p = next;
  for (long i = 0; i < subtrees; ++i) {
    const char* name_end = static_cast<const char*>(std::memchr(p, '\0', end - p));
    if (!name_end) return false;
    const std::string_view name(p, name_end - p);
    std::vector<std::string_view> below;
    for (std::string_view q : paths)
      if (q.starts_with(name) && (q.size() == name.size() || q[name.size()] == '/'))
        below.push_back(q.size() == name.size() ? std::string_view() : q.substr(name.size() + 1));
    // "" (the child itself changed) invalidates the child and matches none of its children.
    if (!rewrite_tree(p, end, below, out, depth + 1)) return false;
  }
  return true;
}

void sha1_trailer(std::string& out) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(out.data(), out.size(), md, &len, EVP_sha1(), nullptr);
  out.append(reinterpret_cast<const char*>(md), len);
}

}  // namespace

IndexImage::IndexImage() {
  bytes_ = std::string("DIRC\0\0\0\2\0\0\0\0", kHeader);
  sha1_trailer(bytes_);
}

Result<IndexImage> IndexImage::parse(std::string bytes) {
  IndexImage img;
  img.bytes_ = std::move(bytes);
  const std::string& b = img.bytes_;
  if (b.size() < kHeader + kTrailer || b.compare(0, 4, "DIRC") != 0) return corrupt("no index header");
  img.version_ = be32(b.data() + 4);
  if (img.version_ < 2 || img.version_ > 4) return corrupt("index version " + std::to_string(img.version_));
  const std::uint32_t count = be32(b.data() + 8);
  const char* const end = b.data() + b.size() - kTrailer;
  const char* p = b.data() + kHeader;
  img.entries_.reserve(std::min<std::size_t>(count, b.size() / kFixed));
  std::vector<std::pair<std::size_t, std::size_t>> v4;  // (offset, length) of each path in v4_paths_
  if (img.version_ == 4) img.v4_paths_.reserve(64);    // on the heap from the start: see the moves
  for (std::uint32_t i = 0; i < count; ++i) {
    if (end - p < static_cast<std::ptrdiff_t>(kFixed)) return corrupt("truncated entry");
    Entry e;
    e.offset = static_cast<std::uint32_t>(p - b.data());
    e.mode = be32(p + 24);
    const std::uint16_t flags = be16(p + 60);
    e.stage = (flags >> 12) & 3;
    const char* name = p + kFixed + ((flags & kExtended) && img.version_ >= 3 ? 2 : 0);
    if (name >= end) return corrupt("truncated entry");
    if (img.version_ < 4) {
      const char* nul = static_cast<const char*>(std::memchr(name, '\0', end - name));
      if (!nul) return corrupt("unterminated path");
      e.path = std::string_view(name, nul - name);
      const std::size_t fixed = name - p;
      p += (fixed + e.path.size() + 8) & ~std::size_t{7};
    } else {
      std::uint64_t strip = 0;
      if (!decode_varint(name, end, strip)) return corrupt("bad path prefix");
      const std::size_t prev_len = v4.empty() ? 0 : v4.back().second;
      const char* nul = static_cast<const char*>(std::memchr(name, '\0', end - name));
      if (!nul || strip > prev_len) return corrupt("bad path");
      const std::size_t at = img.v4_paths_.size();
      const std::size_t keep = prev_len - strip;
      img.v4_paths_.append(img.v4_paths_, v4.empty() ? 0 : v4.back().first, keep);
      img.v4_paths_.append(name, nul);
      v4.emplace_back(at, img.v4_paths_.size() - at);
      p = nul + 1;
    }
    if (p > end) return corrupt("truncated entry");
    e.size = static_cast<std::uint32_t>(p - b.data()) - e.offset;
    img.entries_.push_back(e);
  }
  for (std::size_t i = 0; i < v4.size(); ++i)
    img.entries_[i].path = std::string_view(img.v4_paths_).substr(v4[i].first, v4[i].second);
  img.entries_end_ = static_cast<std::size_t>(p - b.data());
  while (end - p >= 8) {
    Extension x;
    std::memcpy(x.sig, p, 4);
    x.offset = static_cast<std::uint32_t>(p - b.data());
    x.size = be32(p + 4);
    if (x.size > static_cast<std::size_t>(end - p - 8)) return corrupt("truncated extension");
    if (x.sig[0] < 'A' || x.sig[0] > 'Z')
      return corrupt("unsupported mandatory extension '" + std::string(x.sig, 4) + "'");
    img.extensions_.push_back(x);
    p += 8 + x.size;
  }
  if (p != end) return corrupt("trailing bytes");
  return img;
}

const IndexImage::Entry* IndexImage::find(std::string_view path) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), path,
                             [](const Entry& e, std::string_view p) { return e.path < p; });
  if (it == entries_.end() || it->path != path || it->stage != 0) return nullptr;
  return &*it;
}

namespace {

using Range = std::pair<std::size_t, std::size_t>;  // [first, last) of entries

Range equal_paths(const std::vector<IndexImage::Entry>& es, std::string_view path) {
  auto lo = std::lower_bound(es.begin(), es.end(), path,
                             [](const IndexImage::Entry& e, std::string_view p) { return e.path < p; });
  auto hi = lo;
  while (hi != es.end() && hi->path == path) ++hi;
  return {static_cast<std::size_t>(lo - es.begin()), static_cast<std::size_t>(hi - es.begin())};
}

// The edits by path, the last one of a path winning.
std::vector<const IndexEdit*> by_path(const std::vector<IndexEdit>& edits) {
  std::vector<const IndexEdit*> sorted;
  for (const IndexEdit& e : edits) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const IndexEdit* a, const IndexEdit* b) { return a->path < b->path; });
  std::vector<const IndexEdit*> out;
  for (const IndexEdit* e : sorted) {
    if (!out.empty() && out.back()->path == e->path)
      out.back() = e;
    else
      out.push_back(e);
  }
  return out;
}

// The entries the edits take out: the stage-0 entry of a removed path; for a
// path added, all its stages, a file where the path needs a folder, and what
// was a folder where the path is now a file (as git_index_add and `git add`).
std::vector<Range> entries_gone(const std::vector<IndexImage::Entry>& es, const std::vector<const IndexEdit*>& edits) {
  std::vector<Range> gone;
  for (const IndexEdit* e : edits) {
    const Range same = equal_paths(es, e->path);
    if (!e->entry) {
      if (same.first != same.second && es[same.first].stage == 0) gone.push_back({same.first, same.first + 1});
      continue;
    }
    gone.push_back(same);
    for (std::size_t slash = e->path.find('/'); slash != std::string::npos; slash = e->path.find('/', slash + 1))
      gone.push_back(equal_paths(es, std::string_view(e->path).substr(0, slash)));
    const std::string dir = e->path + '/';
    Range below = equal_paths(es, dir);
    while (below.second < es.size() && es[below.second].path.starts_with(dir)) ++below.second;
    gone.push_back(below);
  }
  std::sort(gone.begin(), gone.end());
  return gone;
}

}  // namespace

void IndexImage::write_edited(const std::vector<IndexEdit>& edits, std::string& out) const {
  const std::vector<const IndexEdit*> sorted = by_path(edits);
  const std::vector<Range> gone = entries_gone(entries_, sorted);
  std::vector<std::pair<std::size_t, const IndexEdit*>> adds;  // (entries before it, edit)
  for (const IndexEdit* e : sorted)
    if (e->entry) adds.emplace_back(equal_paths(entries_, e->path).first, e);

  out.assign(bytes_, 0, kHeader);
  std::uint32_t count = 0;
  std::string_view prev;          // the last path written
  std::size_t run = 0, run_end = 0;  // bytes of unchanged entries not yet copied
  auto flush = [&] {
    out.append(bytes_, run, run_end - run);
    run = run_end = 0;
  };
  std::size_t k = 0, g = 0;
  for (std::size_t i = 0; i <= entries_.size(); ++i) {
    for (; k < adds.size() && adds[k].first == i; ++k) {
      flush();
      put_entry(out, version_, *adds[k].second->entry, adds[k].second->path, prev);
      prev = adds[k].second->path;
      ++count;
    }
    if (i == entries_.size()) break;
    while (g < gone.size() && gone[g].second <= i) ++g;
    if (g < gone.size() && gone[g].first <= i) continue;
    const Entry& e = entries_[i];
    // Version 4 stores a path against the one before it: an entry whose
    // predecessor changed is encoded again; all others are copied as they are.
    if (version_ < 4 || prev == (i ? entries_[i - 1].path : std::string_view())) {
      if (run_end != e.offset) {
        flush();
        run = e.offset;
      }
      run_end = e.offset + e.size;
    } else {
      flush();
      const std::size_t fixed = kFixed + ((be16(bytes_.data() + e.offset + 60) & kExtended) ? 2 : 0);
      out.append(bytes_, e.offset, fixed);
      put_path(out, version_, e.path, prev, fixed);
    }
    prev = e.path;
    ++count;
  }
  flush();
  const char n[4] = {char(count >> 24), char(count >> 16), char(count >> 8), char(count)};
  out.replace(8, 4, n, 4);

  std::vector<std::string_view> paths;
  for (const IndexEdit* e : sorted) paths.push_back(e->path);
  for (const Extension& x : extensions_) {
    const std::string_view sig(x.sig, 4);
    if (sig == "REUC" || sig == "NAME") {
      out.append(bytes_, x.offset, 8 + x.size);
    } else if (sig == "TREE") {
      // A cache of trees; when it cannot be read it is left out, as git may.
      const std::size_t at = out.size();
      out.append(bytes_, x.offset, 8);
      const char* p = bytes_.data() + x.offset + 8;
      const char* end = p + x.size;
      bool ok = true;
      while (ok && p < end) ok = rewrite_tree(p, end, paths, out, 0);
      if (!ok || p != end) {
        out.resize(at);
        continue;
      }
      const std::uint32_t size = static_cast<std::uint32_t>(out.size() - at - 8);
      const char s[4] = {char(size >> 24), char(size >> 16), char(size >> 8), char(size)};
      out.replace(at + 4, 4, s, 4);
    }
    // Every other optional extension (untracked cache, fsmonitor, offset
    // tables) describes the old entries; git rebuilds them, libgit2 drops them.
  }
  sha1_trailer(out);
}

}  // namespace editgit::detail
