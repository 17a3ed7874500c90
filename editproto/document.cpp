#include "editproto/document.hpp"

#include "editproto/line_search.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

namespace editproto {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::string_view kBom = "\xEF\xBB\xBF";

// A fast non-cryptographic line hash; never 0, which marks an empty slot.
std::uint64_t hash_line(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
  }
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return h | 1;
}
// A 16-bit key from a line's length and first bytes: a cheap filter that
// spares hashing most lines when only a few are wanted.
std::uint32_t quick_key(std::string_view s) {
  std::uint64_t w = 0;
  std::memcpy(&w, s.data(), std::min<std::size_t>(8, s.size()));
  return static_cast<std::uint32_t>(((w ^ (s.size() * 0x9E3779B97F4A7C15ull)) * 0xFF51AFD7ED558CCDull) >> 48);
}

}  // namespace

std::string_view eol_bytes(Eol e) {
  switch (e) {
    case Eol::lf: return "\n";
    case Eol::crlf: return "\r\n";
    case Eol::none: return "";
  }
  return "";
}

Document::Document(std::string content) : content_(std::make_shared<const std::string>(std::move(content))) {
  std::string_view rest = *content_;
  if (rest.starts_with(kBom)) {
    bom_ = true;
    rest.remove_prefix(kBom.size());
  }
  lines_.reserve(rest.size() / 24 + 16);
  std::size_t lf = 0, crlf = 0;
  while (!rest.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(rest.data(), '\n', rest.size()));
    if (nl == nullptr) {
      lines_.push_back({rest.data(), static_cast<std::uint32_t>(rest.size()), Eol::none});
      break;
    }
    std::size_t len = static_cast<std::size_t>(nl - rest.data());
    Eol e = Eol::lf;
    if (len > 0 && rest[len - 1] == '\r') {
      --len;
      e = Eol::crlf;
      ++crlf;
    } else {
      ++lf;
    }
    lines_.push_back({rest.data(), static_cast<std::uint32_t>(len), e});
    rest.remove_prefix(static_cast<std::size_t>(nl - rest.data()) + 1);
  }
  dominant_ = crlf > lf ? Eol::crlf : Eol::lf;
  size_ = lines_.size();
  if (size_ > 0) pieces_.push_back({0, static_cast<std::uint32_t>(size_)});
  piece_start_.assign(pieces_.size(), 0);
}

void Document::restart_from(std::size_t piece) {
  piece_start_.resize(pieces_.size());
  for (std::size_t i = piece; i < pieces_.size(); ++i)
    piece_start_[i] = i == 0 ? 0 : piece_start_[i - 1] + pieces_[i - 1].count;
}

Document::Position Document::locate(std::size_t n) const {
  auto it = std::upper_bound(piece_start_.begin(), piece_start_.end(), n);
  std::size_t p = static_cast<std::size_t>(it - piece_start_.begin()) - 1;
  return {p, n - piece_start_[p]};
}

std::uint32_t Document::id_at(std::size_t n) const {
  Position pos = locate(n);
  return pieces_[pos.piece].first + static_cast<std::uint32_t>(pos.offset);
}

std::string_view Document::line(std::size_t n) const { return lines_[id_at(n)].text(); }
Eol Document::eol(std::size_t n) const { return lines_[id_at(n)].eol; }
void Document::set_eol(std::size_t n, Eol e) {
  std::string_view text = line(n);
  replace(n, 1, std::span(&text, 1), e, e);
}

bool Document::matches_at(std::size_t start, std::span<const std::string_view> section) const {
  if (start + section.size() > size_) return false;
  Position pos = locate(start);
  std::size_t p = pos.piece, off = pos.offset;
  for (std::string_view want : section) {
    while (off >= pieces_[p].count) {
      ++p;
      off = 0;
    }
    ++comparisons_;
    if (lines_[pieces_[p].first + off].text() != want) return false;
    ++off;
  }
  return true;
}

void Document::prepare(std::span<const std::string_view> lines) {
  if (index_ != Index::full) build_index(Index::partial, lines);
}

std::vector<std::size_t> Document::find(std::span<const std::string_view> section) {
  if (section.empty() || section.size() > size_) return {};
  if (index_ == Index::none && ++searches_ >= 2 && size_ > 256) build_index(Index::full, {});
  return index_ == Index::none ? find_by_scan(section) : find_by_index(section);
}

std::vector<std::size_t> Document::find_by_scan(std::span<const std::string_view> section) const {
  std::vector<std::size_t> found;
  LineMatcher matcher(section, comparisons_);
  std::size_t n = 0;
  for (const Piece& piece : pieces_) {
    const Line* l = &lines_[piece.first];
    for (std::uint32_t i = 0; i < piece.count; ++i, ++n)
      if (matcher.feed(l[i].text())) found.push_back(n + 1 - section.size());
  }
  return found;
}

void Document::build_index(Index mode, std::span<const std::string_view> wanted) {
  index_ = mode;
  std::size_t cap = mode == Index::full ? 1024 : 64;
  const std::size_t need = mode == Index::full ? lines_.size() * 2 + 2 : wanted.size() * 4;
  while (cap < need) cap *= 2;
  slot_hash_.assign(cap, 0);
  slot_head_.assign(cap, kNone);
  slot_count_.assign(cap, 0);
  slots_used_ = 0;
  next_.assign(lines_.size(), kNone);
  filter_.assign(mode == Index::partial ? 1024 : 0, 0);
  for (std::string_view w : wanted) {
    const std::uint32_t k = quick_key(w);
    filter_[k >> 6] |= std::uint64_t{1} << (k & 63);
    std::uint64_t h = hash_line(w);
    std::size_t i = slot_of(h);
    if (slot_hash_[i] == 0) {
      slot_hash_[i] = h;
      ++slots_used_;
    }
  }
  for (std::uint32_t id = 0; id < lines_.size(); ++id) index_line(id);
}

std::size_t Document::slot_of(std::uint64_t h) const {
  const std::size_t mask = slot_hash_.size() - 1;
  std::size_t i = static_cast<std::size_t>(h) & mask;
  while (slot_hash_[i] != 0 && slot_hash_[i] != h) i = (i + 1) & mask;
  return i;
}

void Document::index_line(std::uint32_t id) {
  if (next_.size() <= id) next_.resize(id + 1, kNone);
  if (index_ == Index::partial) {
    const std::uint32_t k = quick_key(lines_[id].text());
    if (!(filter_[k >> 6] & (std::uint64_t{1} << (k & 63)))) return;  // certainly not prepared
  }
  std::uint64_t h = hash_line(lines_[id].text());
  std::size_t i = slot_of(h);
  if (slot_hash_[i] != h) {
    if (index_ == Index::partial) return;  // not a prepared line
    if ((slots_used_ + 1) * 2 > slot_hash_.size()) {
      build_index(Index::full, {});  // grows the table and indexes every id, this one included
      return;
    }
    slot_hash_[i] = h;
    ++slots_used_;
  }
  next_[id] = slot_head_[i];
  slot_head_[i] = id;
  ++slot_count_[i];
}

// Current line numbers of line ids; ids of replaced lines are dropped.
std::vector<std::size_t> Document::positions_of(std::vector<std::uint32_t>& ids) const {
  std::vector<std::size_t> out;
  if (ids.size() <= 16) {
    // Blocks mostly come in file order: start looking where the last edit was.
    const std::size_t n = pieces_.size();
    for (std::uint32_t id : ids)
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t p = (last_edit_piece_ + k) % n;
        if (id >= pieces_[p].first && id - pieces_[p].first < pieces_[p].count) {
          out.push_back(piece_start_[p] + (id - pieces_[p].first));
          break;
        }
      }
    return out;
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_id(pieces_.size());
  for (std::size_t p = 0; p < pieces_.size(); ++p) by_id[p] = {pieces_[p].first, static_cast<std::uint32_t>(p)};
  std::sort(by_id.begin(), by_id.end());
  for (std::uint32_t id : ids) {
    auto it = std::upper_bound(by_id.begin(), by_id.end(), std::pair{id, kNone});
    if (it == by_id.begin()) continue;
    const Piece& piece = pieces_[(--it)->second];
    if (id - piece.first < piece.count) out.push_back(piece_start_[it->second] + (id - piece.first));
  }
  return out;
}

std::vector<std::size_t> Document::find_by_index(std::span<const std::string_view> section) {
  // Look up the rarest indexed line of the section, then check each place it
  // occurs. With a partial index only prepared lines can serve.
  std::size_t pivot = 0, best = std::numeric_limits<std::size_t>::max();
  for (std::size_t j = 0; j < section.size(); ++j) {
    std::size_t slot = slot_of(hash_line(section[j]));
    if (slot_hash_[slot] == 0) {
      if (index_ == Index::full) return {};  // a line that is nowhere
      continue;
    }
    if (slot_count_[slot] < best) {
      best = slot_count_[slot];
      pivot = j;
    }
  }
  if (best == std::numeric_limits<std::size_t>::max()) {
    build_index(Index::full, {});
    return find_by_index(section);
  }
  if (best == 0) return {};
  // Checking each place costs up to a section's worth of comparisons: when
  // the rarest line is so common that this could exceed one pass over the
  // file, the pass is cheaper (and bounded whatever the lines).
  if (best * section.size() > size_) return find_by_scan(section);
  std::vector<std::uint32_t> ids;
  std::uint64_t h = hash_line(section[pivot]);
  for (std::uint32_t id = slot_head_[slot_of(h)]; id != kNone; id = next_[id])
    if (lines_[id].text() == section[pivot]) ids.push_back(id);  // else a hash collision
  std::vector<std::size_t> found;
  for (std::size_t at : positions_of(ids))
    if (at >= pivot && matches_at(at - pivot, section)) found.push_back(at - pivot);
  std::sort(found.begin(), found.end());
  return found;
}

void Document::replace(std::size_t first, std::size_t count, std::span<const std::string_view> lines, Eol e,
                       Eol last_eol) {
  // The new lines live, with their terminators, in one string owned by the
  // document, so each piece of the document is one run of bytes.
  std::size_t bytes = 0;
  for (std::string_view l : lines) bytes += l.size() + 2;
  std::string& store = added_.emplace_back();
  store.reserve(bytes);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    store += lines[i];
    store += eol_bytes(i + 1 == lines.size() ? last_eol : e);
  }
  const std::uint32_t first_new = static_cast<std::uint32_t>(lines_.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::uint32_t id = static_cast<std::uint32_t>(lines_.size());
    const Eol le = i + 1 == lines.size() ? last_eol : e;
    lines_.push_back({store.data() + at, static_cast<std::uint32_t>(lines[i].size()), le});
    at += lines[i].size() + eol_bytes(le).size();
    if (index_ != Index::none) index_line(id);
  }

  // Cut the piece list at `first`, drop `count` lines, insert the new piece.
  std::size_t p = pieces_.size();
  if (first < size_) {
    Position pos = locate(first);
    p = pos.piece;
    if (pos.offset > 0) {
      const std::uint32_t off = static_cast<std::uint32_t>(pos.offset);
      Piece right{pieces_[p].first + off, pieces_[p].count - off};
      pieces_[p].count = off;
      pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(p) + 1, right);
      ++p;
    }
  }
  std::size_t q = p;
  for (std::size_t remaining = count; remaining > 0;) {
    Piece& pc = pieces_[q];
    if (pc.count <= remaining) {
      remaining -= pc.count;
      ++q;
    } else {
      pc.first += static_cast<std::uint32_t>(remaining);
      pc.count -= static_cast<std::uint32_t>(remaining);
      remaining = 0;
    }
  }
  pieces_.erase(pieces_.begin() + static_cast<std::ptrdiff_t>(p), pieces_.begin() + static_cast<std::ptrdiff_t>(q));
  if (!lines.empty())
    pieces_.insert(pieces_.begin() + static_cast<std::ptrdiff_t>(p), Piece{first_new, static_cast<std::uint32_t>(lines.size())});
  size_ = size_ - count + lines.size();
  last_edit_piece_ = p;
  restart_from(p);
}

std::vector<std::string_view> Document::lines() const {
  std::vector<std::string_view> out;
  out.reserve(size_);
  for (const Piece& piece : pieces_)
    for (std::uint32_t i = 0; i < piece.count; ++i) out.push_back(lines_[piece.first + i].text());
  return out;
}

std::vector<std::string_view> Document::chunks() const {
  std::vector<std::string_view> out;
  out.reserve(pieces_.size() + 1);
  if (bom_) out.push_back(kBom);
  for (const Piece& piece : pieces_) {
    const Line& a = lines_[piece.first];
    const Line& b = lines_[piece.first + piece.count - 1];
    out.emplace_back(a.data, static_cast<std::size_t>(b.data - a.data) + b.length + eol_bytes(b.eol).size());
  }
  return out;
}

std::size_t Document::byte_size() const {
  std::size_t n = 0;
  for (std::string_view c : chunks()) n += c.size();
  return n;
}

}  // namespace editproto
