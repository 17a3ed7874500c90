#include "editproto/closest_place.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/path_line.hpp"
#include "editproto/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace editproto::detail {

namespace {

// Votes for the closest place: this many per file and section line, and
// this many for any file.
constexpr std::size_t kVotesPerLine = 8;
constexpr std::size_t kVotesFloor = 1'000'000;

constexpr std::uint32_t kNoKey = 0xFFFFFFFF;

// Lets the key table be searched with a string_view (no copy per file line).
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A distinct non-blank section line, white space and look-alikes aside.
struct Key {
  std::vector<std::size_t> at;  // its lines in the section
  std::size_t in_file = 0;      // how many file lines have it
  std::size_t first_in_file = 0;
};

// The keys, and each line's key (kNoKey: blank, or a file line the section
// does not have).
struct KeyedLines {
  std::vector<Key> keys;
  std::vector<std::uint32_t> section_key, file_key;
  std::size_t nonblank = 0;  // section lines that are not blank
};

KeyedLines key_lines(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                     std::size_t& comparisons) {
  KeyedLines k;
  std::unordered_map<std::string, std::uint32_t, KeyHash, std::equal_to<>> key_ids;
  k.section_key.assign(section.size(), kNoKey);
  for (std::size_t j = 0; j < section.size(); ++j) {
    std::string key = normalize_line(section[j], Tolerance::lookalike);
    if (key.empty()) continue;
    ++k.nonblank;
    auto [it, added] = key_ids.try_emplace(std::move(key), static_cast<std::uint32_t>(k.keys.size()));
    if (added) k.keys.emplace_back();
    k.keys[it->second].at.push_back(j);
    k.section_key[j] = it->second;
  }
  k.file_key.assign(file.size(), kNoKey);
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string_view t = trim(file[i]);
    if (t.empty()) continue;
    ++comparisons;
    auto it = unicode::is_ascii(t) ? key_ids.find(t) : key_ids.find(normalize_line(t, Tolerance::lookalike));
    if (it == key_ids.end()) continue;
    k.file_key[i] = it->second;
    if (k.keys[it->second].in_file++ == 0) k.keys[it->second].first_in_file = i;
  }
  return k;
}

// Which keys vote, within the budget.
struct Votes {
  std::vector<bool> with;                      // per key
  std::size_t skipped_lines = 0;               // section lines left out
  std::size_t skipped_from = 0;                // the fewest times one of them occurs in the file
  std::optional<std::uint32_t> rarest_skipped;  // the key that occurs that often
};

// A line that occurs f times in the file and s times in the section casts
// f x s votes: a file of `x` lines and a section of `x` lines would cost
// file x section. Past a budget linear in both, the lines that occur most
// often in the file (they say least about where the section belongs) do
// not vote, and the diagnostic says so.
Votes within_budget(const std::vector<Key>& keys, std::size_t file_lines, std::size_t section_lines) {
  Votes v;
  v.with.assign(keys.size(), true);
  std::size_t total = 0;
  for (const Key& k : keys) total += k.in_file * k.at.size();
  const std::size_t budget = kVotesPerLine * (file_lines + section_lines) + kVotesFloor;
  if (total <= budget) return v;
  std::vector<std::uint32_t> order(keys.size());
  for (std::uint32_t id = 0; id < order.size(); ++id) order[id] = id;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return keys[x].in_file < keys[y].in_file; });
  // Whole groups of equally frequent lines, so that "the lines that occur
  // f or more times were left out" is exact.
  std::size_t spent = 0;
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g, cost = 0;
    for (; end < order.size() && keys[order[end]].in_file == keys[order[g]].in_file; ++end)
      cost += keys[order[end]].in_file * keys[order[end]].at.size();
    if (v.rarest_skipped || spent + cost > budget) {
      if (!v.rarest_skipped) {
        v.rarest_skipped = order[g];
        v.skipped_from = keys[order[g]].in_file;
      }
      for (std::size_t x = g; x < end; ++x) {
        v.with[order[x]] = false;
        v.skipped_lines += keys[order[x]].at.size();
      }
    } else {
      spent += cost;
    }
    g = end;
  }
  return v;
}

// votes[s + section size - 1]: the votes for start line s (which may be
// before the file's first line). Each file line whose key votes, votes for
// the start that lines it up with each section line of that key.
std::vector<std::uint32_t> count_votes(const KeyedLines& k, const Votes& v, std::size_t section_lines,
                                       std::size_t& comparisons) {
  std::vector<std::uint32_t> votes(k.file_key.size() + section_lines, 0);
  for (std::size_t i = 0; i < k.file_key.size(); ++i) {
    if (k.file_key[i] == kNoKey || !v.with[k.file_key[i]]) continue;
    for (std::size_t j : k.keys[k.file_key[i]].at) {
      ++votes[i + section_lines - 1 - j];
      ++comparisons;
    }
  }
  return votes;
}

// The places to align, up to `most`: start lines in order of their votes,
// most first and the earlier first on ties. A start within half a band of
// a place taken with more votes is left out: the two halves of a place
// around a line the block invented or left out vote for neighbouring
// starts, and one alignment covers both; places with as many votes are all
// taken, however near. A counting sort: linear in the file and section sizes.
std::vector<long long> candidates(const std::vector<std::uint32_t>& votes, std::size_t section_lines,
                                  std::size_t band, std::size_t most, std::size_t& comparisons) {
  const std::uint32_t top = votes.empty() ? 0 : *std::max_element(votes.begin(), votes.end());
  if (top == 0) return {};
  std::vector<std::size_t> first(top + 1, 0);  // per vote count, where its starts begin in `order`
  for (std::uint32_t v : votes)
    if (v) ++first[v];
  std::size_t voted = 0;
  for (std::size_t c = top; c >= 1; --c) {
    const std::size_t starts = first[c];
    first[c] = voted;
    voted += starts;
  }
  std::vector<std::uint32_t> order(voted);
  for (std::size_t v = 0; v < votes.size(); ++v)
    if (votes[v]) order[first[votes[v]]++] = static_cast<std::uint32_t>(v);
  comparisons += 3 * votes.size() + top;
  const std::size_t apart = std::max<std::size_t>(1, band / 2);
  std::vector<std::uint32_t> near_taken(votes.size(), 0);  // the most votes of a place taken near this start
  std::vector<long long> places;
  for (std::uint32_t v : order) {
    if (near_taken[v] > votes[v]) continue;
    places.push_back(static_cast<long long>(v) - static_cast<long long>(section_lines - 1));
    if (band == 0) break;  // no alignment: the most voted place is shown line for line
    if (places.size() == most) break;
    for (std::size_t x = v > apart ? v - apart : 0; x <= v + apart && x < votes.size(); ++x)
      near_taken[x] = std::max(near_taken[x], votes[v]);
    comparisons += 2 * apart + 1;
  }
  return places;
}

// Adds a place's lines to `spans` unless they overlap one there.
void add_apart(std::map<std::size_t, std::size_t>& spans, std::pair<std::size_t, std::size_t> span) {
  auto next = spans.lower_bound(span.first);
  if (next != spans.end() && next->first <= span.second) return;
  if (next != spans.begin() && std::prev(next)->second >= span.first) return;
  spans.emplace_hint(next, span);
}

// The place shown: of the places, in order, as many as are aligned within
// kAlignCells steps (at least kPlacesAligned), the one where the most of the
// section's lines matches, counting the share of each line that does (a
// line with a typo still says where the section belongs); on ties, the one
// with fewest lines missing on either side, then most equal lines (white
// space and look-alikes aside, then not), then the first; the others as
// close are named. With no alignment, the first, line for line.
void line_up(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
             const KeyedLines& k, const std::vector<long long>& places, std::size_t band, ClosestPlace& out,
             std::size_t& comparisons) {
  auto clamp_start = [&](long long s) {
    std::size_t start = static_cast<std::size_t>(std::max(0LL, s));
    if (start + section.size() > file.size()) start = file.size() > section.size() ? file.size() - section.size() : 0;
    return start;
  };
  // Of two places where as much matches: the one in one piece (the other
  // spreads over lines the block does not have), then the one with more
  // lines equal, then more equal white space included.
  using Rank = std::tuple<std::uint64_t, long long, std::size_t, std::size_t, std::size_t>;
  auto ties = [&](const Aligned& a) {
    std::size_t gaps = 0, identical = 0;
    for (const Row& r : a.rows)
      if (r.kind != Row::pair) ++gaps;
      else if (file[r.i] == section[r.j]) ++identical;
    comparisons += a.rows.size();
    return Rank{a.share, -static_cast<long long>(gaps), a.equal_nonblank, identical, a.equal};
  };
  std::optional<Aligned> best;
  Rank best_rank{};
  // The places as close as the best, none overlapping another: first line -> last.
  std::map<std::size_t, std::size_t> as_close;
  const std::size_t before = comparisons;
  for (std::size_t p = 0; band > 0 && p < places.size(); ++p) {
    if (p >= kPlacesAligned && comparisons - before >= kAlignCells) break;
    Aligned a = align(file, section, static_cast<long long>(clamp_start(places[p])), band, comparisons);
    const auto span = span_of(a.rows);
    if (!span) continue;
    const auto rank = ties(a);
    if (!best || rank > best_rank) {
      best = std::move(a);
      best_rank = rank;
      as_close = {*span};
    } else if (rank == best_rank) {
      add_apart(as_close, *span);
    }
  }
  if (best) {
    const std::size_t shown = span_of(best->rows)->first;
    for (const auto& [first, last] : as_close)
      if (first != shown) out.as_close.push_back(first);
    out.rows = std::move(best->rows);
    out.matching = best->equal_nonblank;
    return;
  }
  out.rows = same_length(section.size(), file.size(), clamp_start(places.front()));
  for (const Row& r : out.rows)
    if (k.section_key[r.j] != kNoKey && k.file_key[r.i] == k.section_key[r.j]) ++out.matching;
  comparisons += out.rows.size();
}

}  // namespace

std::optional<ClosestPlace> closest_place(const std::vector<std::string_view>& file,
                                          std::span<const std::string_view> section, std::size_t& comparisons) {
  const KeyedLines k = key_lines(file, section, comparisons);
  const Votes v = within_budget(k.keys, file.size(), section.size());
  const std::vector<std::uint32_t> votes = count_votes(k, v, section.size(), comparisons);
  // At least kPlacesAligned places are aligned, within a share of the steps.
  const std::size_t band = band_for(section.size(), kAlignCells / kPlacesAligned);
  // No more places than line_up can align: each costs at least its band's steps.
  const std::size_t most = std::max(kPlacesAligned, kAlignCells / ((section.size() + 1) * (2 * band + 1)));
  std::vector<long long> places = candidates(votes, section.size(), band, most, comparisons);
  if (places.empty() && v.rarest_skipped) {
    // Only lines left out occur: line up the first file line with the rarest of them.
    const Key& key = k.keys[*v.rarest_skipped];
    places.push_back(static_cast<long long>(key.first_in_file) - static_cast<long long>(key.at.front()));
  }
  if (places.empty()) return std::nullopt;
  ClosestPlace out;
  line_up(file, section, k, places, band, out, comparisons);
  out.nonblank = k.nonblank;
  out.left_out = v.rarest_skipped.has_value();
  out.skipped_lines = v.skipped_lines;
  out.skipped_from = v.skipped_from;
  return out;
}

}  // namespace editproto::detail
