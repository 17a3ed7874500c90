#include "editproto/alignment.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/line_share.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>

namespace editproto::detail {

std::size_t band_for(std::size_t section_lines, std::size_t cells) {
  const std::size_t per_row = cells / (section_lines + 1);
  return per_row < 3 ? 0 : std::min(kBand, (per_row - 1) / 2);
}

std::vector<Row> same_length(std::size_t section_size, std::size_t file_size, std::size_t start) {
  std::vector<Row> rows;
  for (std::size_t j = 0; j < section_size && start + j < file_size; ++j) rows.push_back({Row::pair, j, start + j});
  return rows;
}

std::optional<std::pair<std::size_t, std::size_t>> span_of(const std::vector<Row>& rows) {
  std::optional<std::pair<std::size_t, std::size_t>> span;
  for (const Row& r : rows) {
    if (r.kind == Row::missing) continue;
    if (!span) span.emplace(r.i, r.i);
    span->first = std::min(span->first, r.i);
    span->second = std::max(span->second, r.i);
  }
  return span;
}

namespace {

constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
// The shares of a place's lines cost at most this many steps per cell on
// average: unrelated lines cost one to three, a line with a typo its length.
constexpr std::size_t kShareStepsPerCell = 8;
enum Move : std::uint8_t { from_start, from_diag, from_skip_section, from_skip_file };

// The alignment's table around one place. Cell (j, o): section lines [0, j)
// against file lines up to i = start + j + o, for o in [-g, g].
struct Band {
  long long start = 0, n = 0, g = 0, width = 0;
  long long lo = 0, hi = 0;                // file lines [lo, hi)
  std::span<const std::string_view> section_lines, file_lines;  // section lines and file lines [lo, hi)
  std::vector<std::uint32_t> a, b;         // the same, as keys
  std::uint32_t blank_id = 0;              // the key of a blank line
  std::vector<std::uint8_t> move;          // per cell, the move that reached it
  std::vector<std::uint16_t> shared;       // per cell, the share of the lines it sets against each other
  std::size_t share_steps = 0;             // left for shares

  long long file_at(long long j, long long o) const { return start + j + o; }
  bool same(long long j, long long i) const {
    return a[static_cast<std::size_t>(j - 1)] == b[static_cast<std::size_t>(i - 1 - lo)];
  }
  // How much of section line j matches file line i (both 1-based here).
  // Past the band's steps for shares (lines crafted to share long starts),
  // unequal lines count nothing.
  std::uint32_t share(long long j, long long i, std::size_t& work) {
    if (same(j, i)) return kWholeLine;
    if (share_steps == 0) return 0;
    std::size_t steps = 0;
    const std::uint32_t s = line_share(section_lines[static_cast<std::size_t>(j - 1)],
                                       file_lines[static_cast<std::size_t>(i - 1 - lo)], steps);
    share_steps -= std::min(steps, share_steps);
    work += steps;
    return s;
  }
};

Band keyed_band(const std::vector<std::string_view>& file, std::span<const std::string_view> section, long long start,
                std::size_t band) {
  Band bd;
  bd.start = start;
  bd.n = static_cast<long long>(section.size());
  bd.g = static_cast<long long>(band);
  bd.width = 2 * bd.g + 1;
  const long long f = static_cast<long long>(file.size());
  bd.lo = std::max(0LL, start - bd.g);
  bd.hi = std::min(f, start + bd.n + bd.g);
  // Lines compared by key: white space and look-alikes aside.
  std::unordered_map<std::string, std::uint32_t> ids;
  auto id_of = [&](std::string_view line) {
    return ids.try_emplace(normalize_line(line, Tolerance::lookalike), static_cast<std::uint32_t>(ids.size()))
        .first->second;
  };
  bd.section_lines = section;
  bd.file_lines = std::span(file).subspan(static_cast<std::size_t>(bd.lo),
                                          static_cast<std::size_t>(std::max(0LL, bd.hi - bd.lo)));
  bd.a.resize(section.size());
  bd.b.resize(static_cast<std::size_t>(std::max(0LL, bd.hi - bd.lo)));
  for (std::size_t j = 0; j < bd.a.size(); ++j) bd.a[j] = id_of(section[j]);
  for (std::size_t i = 0; i < bd.b.size(); ++i) bd.b[i] = id_of(file[static_cast<std::size_t>(bd.lo) + i]);
  bd.blank_id = id_of("");
  bd.move.assign(static_cast<std::size_t>((bd.n + 1) * bd.width), from_start);
  bd.shared.assign(bd.move.size(), 0);
  bd.share_steps = kShareStepsPerCell * bd.move.size();
  return bd;
}

// Fills the table row by row; returns the scores of the last row. Score:
// how much of the lines set against each other matches (a whole line when
// they are equal), then how close they sit to the diagonal.
std::vector<std::int64_t> fill(Band& bd, std::size_t& work) {
  const long long g = bd.g, n = bd.n;
  std::vector<std::int64_t> prev(static_cast<std::size_t>(bd.width), kNone), cur(static_cast<std::size_t>(bd.width));
  for (long long j = 0; j <= n; ++j) {
    for (long long o = -g; o <= g; ++o) {
      const std::size_t c = static_cast<std::size_t>(o + g);
      const long long i = bd.file_at(j, o);
      cur[c] = kNone;
      if (i < bd.lo || i > bd.hi) continue;
      ++work;
      std::int64_t best = kNone;
      std::uint8_t how = from_start;
      if (j == 0) best = 0;  // file lines before the place are free
      if (j > 0 && i > bd.lo && prev[c] != kNone) {
        const std::uint32_t share = bd.share(j, i, work);
        bd.shared[static_cast<std::size_t>(j * bd.width) + c] = static_cast<std::uint16_t>(share);
        const std::int64_t v = prev[c] + (share ? (std::int64_t{share} << 22) - (o < 0 ? -o : o) : 0);
        if (v > best) best = v, how = from_diag;
      }
      if (j > 0 && o < g && prev[c + 1] != kNone && prev[c + 1] > best) best = prev[c + 1], how = from_skip_section;
      // File lines after the place are not part of it: none is left out at the end.
      if (j < n && o > -g && cur[c - 1] != kNone && cur[c - 1] > best) best = cur[c - 1], how = from_skip_file;
      cur[c] = best;
      bd.move[static_cast<std::size_t>(j * bd.width) + c] = how;
    }
    std::swap(prev, cur);
  }
  return prev;
}

// The end: the best cell of the last row; on ties the one nearest the
// diagonal, so a last line the file lacks is set against the file's next
// line, as line for line would. Below -g when no cell is reached.
long long best_end(const Band& bd, const std::vector<std::int64_t>& last) {
  const long long g = bd.g;
  long long end_o = -g - 1;
  for (long long o = -g; o <= g; ++o) {
    const std::int64_t v = last[static_cast<std::size_t>(o + g)];
    if (v == kNone) continue;
    const std::int64_t have = end_o < -g ? kNone : last[static_cast<std::size_t>(end_o + g)];
    if (v > have || (v == have && (o < 0 ? -o : o) < (end_o < 0 ? -end_o : end_o))) end_o = o;
  }
  return end_o;
}

// The rows, from the end cell back along the moves that reached it.
Aligned trace_back(const Band& bd, long long end_o) {
  Aligned out;
  long long j = bd.n, o = end_o;
  while (true) {
    const std::uint8_t how = bd.move[static_cast<std::size_t>(j * bd.width + o + bd.g)];
    const long long i = bd.file_at(j, o);
    if (how == from_start) break;
    if (how == from_diag) {
      out.rows.push_back({Row::pair, static_cast<std::size_t>(j - 1), static_cast<std::size_t>(i - 1)});
      const bool blank = bd.a[static_cast<std::size_t>(j - 1)] == bd.blank_id;
      if (!blank) out.share += bd.shared[static_cast<std::size_t>(j * bd.width + o + bd.g)];
      if (bd.same(j, i)) {
        ++out.equal;
        if (!blank) ++out.equal_nonblank;
      }
      --j;
    } else if (how == from_skip_section) {
      out.rows.push_back({Row::missing, static_cast<std::size_t>(j - 1), static_cast<std::size_t>(i)});
      --j;
      ++o;
    } else {
      out.rows.push_back({Row::left_out, static_cast<std::size_t>(j), static_cast<std::size_t>(i - 1)});
      --o;
    }
  }
  std::reverse(out.rows.begin(), out.rows.end());
  return out;
}

}  // namespace

Aligned align(const std::vector<std::string_view>& file, std::span<const std::string_view> section, long long start,
              std::size_t band, std::size_t& work) {
  Band bd = keyed_band(file, section, start, band);
  const std::vector<std::int64_t> last = fill(bd, work);
  const long long end_o = best_end(bd, last);
  if (end_o < -bd.g) return {};
  return trace_back(bd, end_o);
}

}  // namespace editproto::detail
