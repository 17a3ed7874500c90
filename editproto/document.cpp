#include "editproto/document.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

namespace editproto {

namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::uint64_t hash_line(std::string_view s) { return std::hash<std::string_view>{}(s); }
}  // namespace

std::string_view eol_bytes(Eol e) {
  switch (e) {
    case Eol::lf: return "\n";
    case Eol::crlf: return "\r\n";
    case Eol::none: return "";
  }
  return "";
}

Document::Document(std::string content) : content_(std::make_unique<std::string>(std::move(content))) {
  std::string_view rest = *content_;
  if (rest.starts_with(kBom)) {
    bom_ = true;
    rest.remove_prefix(kBom.size());
  }
  std::size_t lf = 0, crlf = 0;
  while (!rest.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(rest.data(), '\n', rest.size()));
    if (nl == nullptr) {
      lines_.push_back({rest.data(), static_cast<std::uint32_t>(rest.size()), Eol::none});
      break;
    }
    std::size_t len = nl - rest.data();
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
  rebuild_maps();
}

void Document::rebuild_maps() {
  piece_start_.resize(pieces_.size());
  by_id_.resize(pieces_.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    piece_start_[i] = at;
    at += pieces_[i].count;
    by_id_[i] = {pieces_[i].first, static_cast<std::uint32_t>(i)};
  }
  std::sort(by_id_.begin(), by_id_.end());
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
void Document::set_eol(std::size_t n, Eol e) { lines_[id_at(n)].eol = e; }

bool Document::matches_at(std::size_t start, std::span<const std::string> section) const {
  if (start + section.size() > size_) return false;
  Position pos = locate(start);
  std::size_t p = pos.piece, off = pos.offset;
  for (const std::string& want : section) {
    while (off >= pieces_[p].count) {
      ++p;
      off = 0;
    }
    if (lines_[pieces_[p].first + off].text() != want) return false;
    ++off;
  }
  return true;
}

std::vector<std::size_t> Document::find(std::span<const std::string> section) {
  if (section.empty() || section.size() > size_) return {};
  if (!indexed_ && ++searches_ >= 2 && size_ > 256) build_index();
  return indexed_ ? find_by_index(section) : find_by_scan(section);
}

std::vector<std::size_t> Document::find_by_scan(std::span<const std::string> section) const {
  std::vector<std::size_t> found;
  const std::string& head = section.front();
  std::size_t n = 0;
  for (const Piece& piece : pieces_) {
    const Line* l = &lines_[piece.first];
    for (std::uint32_t i = 0; i < piece.count; ++i, ++n) {
      if (l[i].length == head.size() && std::memcmp(l[i].data, head.data(), head.size()) == 0 &&
          matches_at(n, section))
        found.push_back(n);
    }
  }
  return found;
}

void Document::build_index() {
  indexed_ = true;
  std::size_t cap = 1024;
  while (cap < lines_.size() * 2 + 2) cap *= 2;
  slot_hash_.assign(cap, 0);
  slot_head_.assign(cap, kNone);
  slot_count_.assign(cap, 0);
  slots_used_ = 0;
  next_.assign(lines_.size(), kNone);
  for (std::uint32_t id = 0; id < lines_.size(); ++id) index_line(id);
}

std::size_t Document::slot_of(std::uint64_t h) const {
  std::size_t mask = slot_hash_.size() - 1;
  std::size_t i = static_cast<std::size_t>(h) & mask;
  while (slot_head_[i] != kNone && slot_hash_[i] != h) i = (i + 1) & mask;
  return i;
}

void Document::index_line(std::uint32_t id) {
  if ((slots_used_ + 1) * 2 > slot_hash_.size()) {
    build_index();  // grows the table and indexes every id, this one included
    return;
  }
  if (next_.size() <= id) next_.resize(id + 1, kNone);
  std::uint64_t h = hash_line(lines_[id].text());
  std::size_t i = slot_of(h);
  if (slot_head_[i] == kNone) {
    slot_hash_[i] = h;
    ++slots_used_;
  }
  next_[id] = slot_head_[i];
  slot_head_[i] = id;
  ++slot_count_[i];
}

std::vector<std::size_t> Document::find_by_index(std::span<const std::string> section) {
  // Look up the rarest line of the section, then check each place it occurs.
  std::size_t pivot = 0, best = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> slots(section.size());
  for (std::size_t j = 0; j < section.size(); ++j) {
    slots[j] = slot_of(hash_line(section[j]));
    std::size_t count = slot_head_[slots[j]] == kNone ? 0 : slot_count_[slots[j]];
    if (count < best) {
      best = count;
      pivot = j;
    }
    if (count == 0) return {};
  }
  std::vector<std::size_t> found;
  for (std::uint32_t id = slot_head_[slots[pivot]]; id != kNone; id = next_[id]) {
    if (lines_[id].text() != section[pivot]) continue;  // hash collision
    auto it = std::upper_bound(by_id_.begin(), by_id_.end(), std::pair{id, kNone});
    if (it == by_id_.begin()) continue;
    --it;
    const Piece& piece = pieces_[it->second];
    if (id >= piece.first + piece.count) continue;  // the line was replaced
    std::size_t at = piece_start_[it->second] + (id - piece.first);
    if (at < pivot) continue;
    if (matches_at(at - pivot, section)) found.push_back(at - pivot);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::uint32_t Document::new_line(std::string_view text, Eol e) {
  std::uint32_t id = static_cast<std::uint32_t>(lines_.size());
  lines_.push_back({text.data(), static_cast<std::uint32_t>(text.size()), e});
  if (indexed_) index_line(id);
  return id;
}

void Document::replace(std::size_t first, std::size_t count, std::span<const std::string> lines, Eol e,
                       Eol last_eol) {
  // The new lines' text lives in one string owned by the document.
  std::size_t bytes = 0;
  for (const std::string& l : lines) bytes += l.size();
  std::string& store = added_.emplace_back();
  store.reserve(bytes);
  for (const std::string& l : lines) store += l;
  std::uint32_t first_new = static_cast<std::uint32_t>(lines_.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    new_line(std::string_view(store).substr(at, lines[i].size()), i + 1 == lines.size() ? last_eol : e);
    at += lines[i].size();
  }

  std::vector<Piece> next;
  next.reserve(pieces_.size() + 2);
  auto push = [&next](Piece p) {
    if (p.count == 0) return;
    if (!next.empty() && next.back().first + next.back().count == p.first) next.back().count += p.count;
    else next.push_back(p);
  };
  const std::size_t end = first + count;
  std::vector<Piece> right;
  for (std::size_t i = 0; i < pieces_.size(); ++i) {
    std::size_t s = piece_start_[i], t = s + pieces_[i].count;
    if (s < first) push({pieces_[i].first, static_cast<std::uint32_t>(std::min(t, first) - s)});
    if (t > end) {
      std::size_t b = std::max(s, end);
      right.push_back({pieces_[i].first + static_cast<std::uint32_t>(b - s), static_cast<std::uint32_t>(t - b)});
    }
  }
  push({first_new, static_cast<std::uint32_t>(lines.size())});
  for (const Piece& p : right) push(p);
  pieces_ = std::move(next);
  size_ = size_ - count + lines.size();
  rebuild_maps();
}

std::vector<std::string_view> Document::lines() const {
  std::vector<std::string_view> out;
  out.reserve(size_);
  for (const Piece& piece : pieces_)
    for (std::uint32_t i = 0; i < piece.count; ++i) out.push_back(lines_[piece.first + i].text());
  return out;
}

std::size_t Document::byte_size() const {
  std::size_t n = bom_ ? kBom.size() : 0;
  for (const Piece& piece : pieces_)
    for (std::uint32_t i = 0; i < piece.count; ++i) {
      const Line& l = lines_[piece.first + i];
      n += l.length + eol_bytes(l.eol).size();
    }
  return n;
}

std::string Document::serialize() const {
  std::string out;
  out.reserve(byte_size());
  if (bom_) out += kBom;
  for (const Piece& piece : pieces_)
    for (std::uint32_t i = 0; i < piece.count; ++i) {
      const Line& l = lines_[piece.first + i];
      out.append(l.data, l.length);
      out += eol_bytes(l.eol);
    }
  return out;
}

}  // namespace editproto
