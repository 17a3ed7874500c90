#include "editproto/closest_place.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/path_line.hpp"
#include "editproto/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
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

// The places most lines vote for, a few, each more than half a band from
// the others (the two halves of a place around a line the block invented
// or left out vote for neighbouring starts, and one alignment covers
// both): (start, votes).
std::vector<std::pair<long long, std::size_t>> most_voted(const std::vector<std::uint32_t>& votes,
                                                          std::size_t section_lines, std::size_t band,
                                                          std::size_t& comparisons) {
  const long long apart = std::max<long long>(1, static_cast<long long>(band) / 2);
  std::vector<std::pair<long long, std::size_t>> places;
  for (std::size_t round = 0; round < kPlacesAligned; ++round) {
    long long at = 0;
    std::size_t most = 0;
    for (std::size_t v = 0; v < votes.size(); ++v) {
      if (votes[v] <= most) continue;
      const long long s = static_cast<long long>(v) - static_cast<long long>(section_lines - 1);
      if (std::any_of(places.begin(), places.end(), [&](const auto& pl) {
            return std::llabs(pl.first - s) <= apart;
          }))
        continue;
      at = s;
      most = votes[v];
    }
    comparisons += votes.size();
    if (most == 0) break;
    places.emplace_back(at, most);
    if (band == 0) break;  // no alignment: the most voted place is shown line for line
  }
  return places;
}

// The place shown: of the places, the one the alignment matches best; with
// no alignment, the first, line for line.
void line_up(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
             const KeyedLines& k, const std::vector<std::pair<long long, std::size_t>>& places, std::size_t band,
             ClosestPlace& out, std::size_t& comparisons) {
  auto clamp_start = [&](long long s) {
    std::size_t start = static_cast<std::size_t>(std::max(0LL, s));
    if (start + section.size() > file.size()) start = file.size() > section.size() ? file.size() - section.size() : 0;
    return start;
  };
  std::optional<Aligned> best;
  if (band > 0)
    for (const auto& pl : places) {
      Aligned a = align(file, section, static_cast<long long>(clamp_start(pl.first)), band, comparisons);
      if (!span_of(a.rows)) continue;
      if (!best || a.equal_nonblank > best->equal_nonblank ||
          (a.equal_nonblank == best->equal_nonblank && a.equal > best->equal))
        best = std::move(a);
    }
  if (best) {
    out.rows = std::move(best->rows);
    out.matching = best->equal_nonblank;
    return;
  }
  out.rows = same_length(section.size(), file.size(), clamp_start(places.front().first));
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
  // Each of the places is aligned, within a share of the steps.
  const std::size_t band = band_for(section.size(), kAlignCells / kPlacesAligned);
  std::vector<std::pair<long long, std::size_t>> places = most_voted(votes, section.size(), band, comparisons);
  if (places.empty() && v.rarest_skipped) {
    // Only lines left out occur: line up the first file line with the rarest of them.
    const Key& key = k.keys[*v.rarest_skipped];
    places.emplace_back(static_cast<long long>(key.first_in_file) - static_cast<long long>(key.at.front()), 0);
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
