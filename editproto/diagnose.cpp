#include "editproto/diagnose.hpp"

#include "editproto/line_search.hpp"
#include "editproto/path_line.hpp"
#include "editproto/unicode.hpp"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

namespace editproto {

namespace {

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::string_view trailing_ws(std::string_view s) {
  std::size_t i = s.size();
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
  return s.substr(i);
}

std::string plural(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

// "1 tab and 2 spaces", "4 spaces", "nothing".
std::string describe_ws(std::string_view ws) {
  std::size_t tabs = std::count(ws.begin(), ws.end(), '\t');
  std::size_t spaces = ws.size() - tabs;
  if (tabs == 0 && spaces == 0) return "nothing";
  if (tabs == 0) return plural(spaces, "space");
  if (spaces == 0) return plural(tabs, "tab");
  return plural(tabs, "tab") + " and " + plural(spaces, "space");
}

std::size_t count_code_points(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    i += unicode::decode(s, i).length;
    ++n;
  }
  return n;
}

std::string excerpt(std::string_view s, std::size_t pos) {
  std::string_view rest = s.substr(pos);
  std::size_t cut = 0, cps = 0;
  while (cut < rest.size() && cps < 20) {
    cut += unicode::decode(rest, cut).length;
    ++cps;
  }
  std::string out = "\"" + std::string(rest.substr(0, cut)) + "\"";
  if (cut < rest.size()) out += "...";
  return out;
}

// Walks the two cores code point by code point and names what differs.
// True when the first difference it names is plain text (no look-alike,
// invisible or normalisation difference): the caller then names the line.
bool describe_core(std::string_view f, std::string_view b, std::size_t col0, std::vector<std::string>& parts) {
  const std::size_t before = parts.size();
  std::size_t i = 0, j = 0, col = col0;
  int reported = 0;
  while ((i < f.size() || j < b.size()) && reported < 4) {
    if (i >= f.size()) {
      parts.push_back("your block's line goes on at column " + std::to_string(col) + " with " + excerpt(b, j) +
                      ", which the file's line does not have");
      return false;
    }
    if (j >= b.size()) {
      parts.push_back("the file's line goes on at column " + std::to_string(col) + " with " + excerpt(f, i) +
                      ", which your block's line does not have");
      return false;
    }
    unicode::CodePoint cf = unicode::decode(f, i), cb = unicode::decode(b, j);
    if (cf.valid == cb.valid && cf.value == cb.value) {
      i += cf.length;
      j += cb.length;
      ++col;
      continue;
    }
    ++reported;
    const std::string where = " at column " + std::to_string(col);
    if (unicode::is_zero_width(cf.value)) {
      parts.push_back("the file has an invisible " + unicode::describe(cf.value) + where + " that your block lacks");
      i += cf.length;
      ++col;
      continue;
    }
    if (unicode::is_zero_width(cb.value)) {
      parts.push_back("your block has an invisible " + unicode::describe(cb.value) + where +
                      " that the file's line lacks");
      j += cb.length;
      continue;
    }
    if (i + cf.length < f.size()) {
      unicode::CodePoint mark = unicode::decode(f, i + cf.length);
      if (unicode::is_combining_mark(mark.value) && unicode::compose(cf.value, mark.value) == cb.value) {
        parts.push_back("the file writes " + unicode::describe(cf.value) + " + " + unicode::describe(mark.value) +
                        " (decomposed, NFD)" + where + " where your block has the single " +
                        unicode::describe(cb.value) + " (NFC)");
        i += cf.length + mark.length;
        j += cb.length;
        col += 2;
        continue;
      }
    }
    if (j + cb.length < b.size()) {
      unicode::CodePoint mark = unicode::decode(b, j + cb.length);
      if (unicode::is_combining_mark(mark.value) && unicode::compose(cb.value, mark.value) == cf.value) {
        parts.push_back("the file has the single " + unicode::describe(cf.value) + " (NFC)" + where +
                        " where your block writes " + unicode::describe(cb.value) + " + " +
                        unicode::describe(mark.value) + " (decomposed, NFD)");
        i += cf.length;
        j += cb.length + mark.length;
        ++col;
        continue;
      }
    }
    if (unicode::ascii_lookalike(cf.value) == unicode::ascii_lookalike(cb.value)) {
      parts.push_back(unicode::describe(cf.value) + " in the file vs " + unicode::describe(cb.value) +
                      " in your block" + where);
      i += cf.length;
      j += cb.length;
      ++col;
      continue;
    }
    parts.push_back("the text differs from column " + std::to_string(col) + ": the file has " + excerpt(f, i) +
                    " where your block has " + excerpt(b, j));
    return parts.size() == before + 1;
  }
  return false;
}

}  // namespace

std::string normalize_line(std::string_view line, Tolerance t) {
  switch (t) {
    case Tolerance::exact: return std::string(line);
    case Tolerance::whitespace: return std::string(trim(line));
    case Tolerance::lookalike:
      if (is_ascii(line)) return std::string(trim(line));
      return std::string(trim(unicode::fold(trim(line))));
  }
  return std::string(line);
}

std::vector<std::size_t> find_tolerant(const std::vector<std::string_view>& file,
                                       std::span<const std::string_view> section, Tolerance t,
                                       std::size_t* comparisons) {
  std::size_t local = 0;
  std::vector<std::size_t> found;
  if (section.empty() || section.size() > file.size()) return found;
  // Each line is normalised once, and the normalised section is looked for
  // in one pass over the normalised file.
  std::vector<std::string> want;
  want.reserve(section.size());
  for (std::string_view s : section) want.push_back(normalize_line(s, t));
  const std::vector<std::string_view> keys(want.begin(), want.end());
  LineMatcher matcher(keys, comparisons ? *comparisons : local);
  std::string folded;
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string_view key = file[i];
    if (t == Tolerance::whitespace || (t == Tolerance::lookalike && is_ascii(key))) {
      key = trim(key);
    } else if (t == Tolerance::lookalike) {
      folded = normalize_line(key, t);
      key = folded;
    }
    if (matcher.feed(key)) found.push_back(i + 1 - section.size());
  }
  return found;
}

std::string describe_difference(std::string_view file_line, std::string_view block_line) {
  if (file_line == block_line) return {};
  std::vector<std::string> parts;
  std::string_view fi = leading_ws(file_line), bi = leading_ws(block_line);
  std::string_view fcore = file_line.substr(fi.size()), bcore = block_line.substr(bi.size());
  std::string_view ft = trailing_ws(fcore), bt = trailing_ws(bcore);
  if (ft.size() == fcore.size()) ft = {};  // an all-blank line has indentation only
  if (bt.size() == bcore.size()) bt = {};
  fcore.remove_suffix(ft.size());
  bcore.remove_suffix(bt.size());

  // When the words themselves differ, white space is noise: name the text.
  if (fcore != bcore) {
    std::vector<std::string> core;
    if (describe_core(fcore, bcore, count_code_points(fi) + 1, core)) {
      std::size_t col = 1;
      std::size_t i = 0;
      while (i < file_line.size() && i < block_line.size() && file_line[i] == block_line[i]) ++i;
      while (i > 0 && (static_cast<unsigned char>(file_line[i]) & 0xC0) == 0x80) --i;  // a whole character
      col = count_code_points(file_line.substr(0, i)) + 1;
      return "the line differs from column " + std::to_string(col) + ": the file has " + excerpt(file_line, i) +
             " where your block has " + excerpt(block_line, i);
    }
  }
  if (fi != bi) {
    bool ftab = fi.find('\t') != std::string_view::npos, btab = bi.find('\t') != std::string_view::npos;
    std::string what = ftab != btab ? "tabs vs spaces" : "indentation";
    parts.push_back(what + ": the file's line is indented with " + describe_ws(fi) + ", your block's with " +
                    describe_ws(bi));
  }
  if (ft != bt)
    parts.push_back("trailing white space: the file's line ends with " + describe_ws(ft) + ", your block's with " +
                    describe_ws(bt));
  if (fcore != bcore) describe_core(fcore, bcore, count_code_points(fi) + 1, parts);
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += "; ";
    out += p;
  }
  return out;
}

std::string quote_line(std::size_t number, std::string_view text) {
  std::string out = "  " + std::to_string(number) + " | ";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (shown == 200) {
      out += "... (" + std::to_string(count_code_points(text.substr(i))) + " more characters)";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
    } else {
      std::size_t len = unicode::decode(text, i).length;
      out.append(text.substr(i, len));
      i += len;
    }
    ++shown;
  }
  return out;
}

std::string unified_diff(std::span<const std::string_view> block_lines, std::span<const std::string_view> file_lines,
                         std::size_t first_line, std::string_view path, std::size_t block_first) {
  std::vector<std::string> a(block_lines.begin(), block_lines.end());
  std::vector<std::string> b(file_lines.begin(), file_lines.end());
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.compose();
  diff.composeUnifiedHunks();
  std::string out = "--- your EDIT section\n+++ " + std::string(path) + " (lines " + std::to_string(first_line) +
                    "-" + std::to_string(first_line + file_lines.size() - 1) + ")\n";
  for (const auto& hunk : diff.getUniHunks()) {
    out += "@@ -" + std::to_string(hunk.a + static_cast<long long>(block_first) - 1) + "," + std::to_string(hunk.b) + " +" +
           std::to_string(hunk.c + static_cast<long long>(first_line) - 1) + "," + std::to_string(hunk.d) + " @@\n";
    auto emit = [&out](const auto& elems) {
      for (const auto& e : elems) {
        out += e.second.type == dtl::SES_ADD ? '+' : e.second.type == dtl::SES_DELETE ? '-' : ' ';
        out += e.first;
        out += '\n';
      }
    };
    emit(hunk.common[0]);
    emit(hunk.change);
    emit(hunk.common[1]);
  }
  return out;
}

namespace {

// Votes for the closest place: this many per file and section line, and
// this many for any file.
constexpr std::size_t kVotesPerLine = 8;
constexpr std::size_t kVotesFloor = 1'000'000;

constexpr std::uint32_t kNoKey = 0xFFFFFFFF;

// The diff of the closest place: at most about this many steps, else this
// many lines of it.
constexpr std::size_t kDiffBudget = 4'000'000;
constexpr std::size_t kDiffLines = 200;

// The alignment of a place: at most this many lines missing on either side,
// within this many steps in all, over this many places.
constexpr std::size_t kBand = 8;
constexpr std::size_t kAlignCells = 4'000'000;
constexpr std::size_t kPlacesAligned = 4;

// The widest band up to kBand whose alignment fits in `cells` steps; 0 when
// even a band of 1 does not (a section of over a million lines).
std::size_t band_for(std::size_t section_lines, std::size_t cells) {
  const std::size_t per_row = cells / (section_lines + 1);
  return per_row < 3 ? 0 : std::min(kBand, (per_row - 1) / 2);
}

// Places listed for a section that occurs more than once.
constexpr std::size_t kPlacesListed = 20;

std::string range(std::size_t first, std::size_t count) {
  return count <= 1 ? "line " + std::to_string(first) : "lines " + std::to_string(first) + "-" +
                                                             std::to_string(first + count - 1);
}

// How the EDIT section lines up with the file at one place: each section
// line against a file line (equal or not), a section line the file does not
// have there, or a file line the section leaves out. In order.
struct Row {
  enum Kind { pair, missing, left_out } kind;
  std::size_t j;  // section line; for left_out, the section line after it
  std::size_t i;  // file line; for missing, the file line after it
};

// The same number of file lines from `start`, line for line.
std::vector<Row> same_length(std::size_t section_size, std::size_t file_size, std::size_t start) {
  std::vector<Row> rows;
  for (std::size_t j = 0; j < section_size && start + j < file_size; ++j) rows.push_back({Row::pair, j, start + j});
  return rows;
}

// The file lines the rows cover: [first, last], or nothing.
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

// Whether a row shows a difference.
bool differs(const std::vector<std::string_view>& file, std::span<const std::string_view> section, const Row& r) {
  return r.kind != Row::pair || file[r.i] != section[r.j];
}

// The per-line differences of a place (up to 8), then the diff.
std::string place_report(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                         const std::vector<Row>& rows, std::string_view path, std::size_t* first_diff = nullptr) {
  std::string out;
  std::size_t listed = 0, differing = 0;
  const Row* first = nullptr;
  for (const Row& r : rows) {
    if (!differs(file, section, r)) continue;
    if (differing++ == 0) {
      first = &r;
      if (first_diff) *first_diff = std::min(r.i, file.empty() ? 0 : file.size() - 1);
    }
    if (listed == 8) continue;
    ++listed;
    switch (r.kind) {
      case Row::pair:
        out += "line " + std::to_string(r.i + 1) + ": " + describe_difference(file[r.i], section[r.j]) + "\n";
        out += "  file:  " + quote_line(r.i + 1, file[r.i]) + "\n";
        out += "  block: " + quote_line(r.j + 1, section[r.j]) + "\n";
        break;
      case Row::missing:
        out += "line " + std::to_string(r.j + 1) + " of your EDIT section is not in the file (" +
               (r.i == 0 ? "before line 1"
                : r.i >= file.size()
                    ? "after line " + std::to_string(file.size())
                    : "between lines " + std::to_string(r.i) + " and " + std::to_string(r.i + 1)) +
               "):\n";
        out += "  block: " + quote_line(r.j + 1, section[r.j]) + "\n";
        break;
      case Row::left_out:
        out += "line " + std::to_string(r.i + 1) + " of the file is not in your EDIT section (" +
               (r.j == 0 ? std::string("before its first line")
                : r.j >= section.size()
                    ? std::string("after its last line")
                    : "between its lines " + std::to_string(r.j) + " and " + std::to_string(r.j + 1)) +
               "):\n";
        out += "  file:  " + quote_line(r.i + 1, file[r.i]) + "\n";
        break;
    }
  }
  if (differing > listed) out += "(" + std::to_string(differing - listed) + " more differing lines, see the diff)\n";
  const auto span = span_of(rows);
  if (!span) return out;
  const std::size_t start = span->first, len = span->second - span->first + 1;
  // The diff costs about (block + place lines) x (lines that differ): past
  // a budget it covers a bounded stretch from the first difference.
  const std::size_t apart = differing + 1;
  if ((section.size() + len) * apart <= kDiffBudget) {
    out += unified_diff(section, std::span(file).subspan(start, len), start + 1, path);
    return out;
  }
  const std::size_t fj = first ? (first->kind == Row::left_out ? std::min(first->j, section.size() - 1) : first->j) : 0;
  const std::size_t fi = first ? std::clamp(first->i, start, start + len - 1) : start;
  const std::size_t from = fj >= 3 ? fj - 3 : 0;
  const std::size_t file_from = std::max(start, fi >= 3 ? fi - 3 : 0);
  const std::size_t block_count = std::min(kDiffLines, section.size() - from);
  const std::size_t file_count = std::min(kDiffLines, start + len - file_from);
  out += "(the diff covers lines " + std::to_string(from + 1) + "-" + std::to_string(from + block_count) +
         " of your EDIT section only: the whole diff would cost too much)\n";
  out += unified_diff(section.subspan(from, block_count), std::span(file).subspan(file_from, file_count),
                      file_from + 1, path, from + 1);
  return out;
}

std::string window_report(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                          std::size_t start, std::string_view path, std::size_t* first_diff = nullptr) {
  return place_report(file, section, same_length(section.size(), file.size(), start), path, first_diff);
}

// The EDIT section aligned with the file around a place, allowing up to
// `band` lines missing on either side: the best alignment (most lines equal,
// white space and look-alikes aside) among those within `band` lines of the
// place's diagonal, preferring lines on it. It costs (section + 1) x (2 x band
// + 1) steps, so a line the block invented or left out is named where it is,
// instead of every line after it being compared with its neighbour.
struct Aligned {
  std::vector<Row> rows;
  std::size_t equal = 0;           // section lines equal to their file line
  std::size_t equal_nonblank = 0;  // of which not blank
};

Aligned align(const std::vector<std::string_view>& file, std::span<const std::string_view> section, long long start,
              std::size_t band, std::size_t& work) {
  const long long n = static_cast<long long>(section.size());
  const long long f = static_cast<long long>(file.size());
  const long long g = static_cast<long long>(band);
  const long long lo = std::max(0LL, start - g), hi = std::min(f, start + n + g);  // file lines [lo, hi)
  // Lines compared by key: white space and look-alikes aside.
  std::unordered_map<std::string, std::uint32_t> ids;
  auto id_of = [&](std::string_view line) {
    return ids.try_emplace(normalize_line(line, Tolerance::lookalike), static_cast<std::uint32_t>(ids.size()))
        .first->second;
  };
  std::vector<std::uint32_t> a(section.size()), b(static_cast<std::size_t>(std::max(0LL, hi - lo)));
  for (std::size_t j = 0; j < a.size(); ++j) a[j] = id_of(section[j]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = id_of(file[static_cast<std::size_t>(lo) + i]);
  const std::uint32_t blank_id = id_of("");

  // Cell (j, o): section lines [0, j) against file lines up to i = start + j + o.
  // Score: equal lines first, then how close they sit to the diagonal.
  const long long width = 2 * g + 1;
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> prev(static_cast<std::size_t>(width), kNone), cur(static_cast<std::size_t>(width));
  enum : std::uint8_t { from_start, from_diag, from_skip_section, from_skip_file };
  std::vector<std::uint8_t> move(static_cast<std::size_t>((n + 1) * width), from_start);
  auto file_at = [&](long long j, long long o) { return start + j + o; };
  for (long long j = 0; j <= n; ++j) {
    for (long long o = -g; o <= g; ++o) {
      const std::size_t c = static_cast<std::size_t>(o + g);
      const long long i = file_at(j, o);
      cur[c] = kNone;
      if (i < lo || i > hi) continue;
      ++work;
      std::int64_t best = kNone;
      std::uint8_t how = from_start;
      if (j == 0) best = 0;  // file lines before the place are free
      if (j > 0 && i > lo && prev[c] != kNone) {
        const bool same = a[static_cast<std::size_t>(j - 1)] == b[static_cast<std::size_t>(i - 1 - lo)];
        const std::int64_t v = prev[c] + (same ? (std::int64_t{1} << 32) - (o < 0 ? -o : o) : 0);
        if (v > best) best = v, how = from_diag;
      }
      if (j > 0 && o < g && prev[c + 1] != kNone && prev[c + 1] > best) best = prev[c + 1], how = from_skip_section;
      // File lines after the place are not part of it: none is left out at the end.
      if (j < n && o > -g && cur[c - 1] != kNone && cur[c - 1] > best) best = cur[c - 1], how = from_skip_file;
      cur[c] = best;
      move[static_cast<std::size_t>(j * width) + c] = how;
    }
    std::swap(prev, cur);
  }
  // The end: the best cell of the last row; on ties the one nearest the
  // diagonal, so a last line the file lacks is set against the file's next
  // line, as line for line would.
  long long end_o = -g - 1;
  for (long long o = -g; o <= g; ++o) {
    const std::int64_t v = prev[static_cast<std::size_t>(o + g)];
    if (v == kNone) continue;
    const std::int64_t have = end_o < -g ? kNone : prev[static_cast<std::size_t>(end_o + g)];
    if (v > have || (v == have && (o < 0 ? -o : o) < (end_o < 0 ? -end_o : end_o))) end_o = o;
  }
  Aligned out;
  if (end_o < -g) return out;
  long long j = n, o = end_o;
  while (true) {
    const std::uint8_t how = move[static_cast<std::size_t>(j * width + o + g)];
    const long long i = file_at(j, o);
    if (how == from_start) break;
    if (how == from_diag) {
      out.rows.push_back({Row::pair, static_cast<std::size_t>(j - 1), static_cast<std::size_t>(i - 1)});
      if (a[static_cast<std::size_t>(j - 1)] == b[static_cast<std::size_t>(i - 1 - lo)]) {
        ++out.equal;
        if (a[static_cast<std::size_t>(j - 1)] != blank_id) ++out.equal_nonblank;
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

// "2, 5, 9"; past kPlacesListed places, "... and 1200 more": a section
// that occurs everywhere must not make a diagnostic as long as the file.
std::string line_list(std::span<const std::size_t> starts) {
  std::string out;
  const std::size_t listed = std::min(starts.size(), kPlacesListed);
  for (std::size_t i = 0; i < listed; ++i) {
    if (i) out += ", ";
    out += std::to_string(starts[i] + 1);
  }
  if (listed < starts.size()) out += " and " + std::to_string(starts.size() - listed) + " more";
  return out;
}

// Dice coefficient of character bigrams; cheap and good enough to point at
// the line an LLM was thinking of.
double similarity(std::string_view a, std::string_view b) {
  if (a.size() < 2 || b.size() < 2) return a == b ? 1.0 : 0.0;
  std::vector<std::uint16_t> x, y;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) x.push_back(static_cast<std::uint16_t>((a[i] << 8) | (a[i + 1] & 0xFF)));
  for (std::size_t i = 0; i + 1 < b.size(); ++i) y.push_back(static_cast<std::uint16_t>((b[i] << 8) | (b[i + 1] & 0xFF)));
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::size_t common = 0;
  for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    if (x[i] == y[j]) { ++common; ++i; ++j; }
    else if (x[i] < y[j]) ++i;
    else ++j;
  }
  return 2.0 * static_cast<double>(common) / static_cast<double>(x.size() + y.size());
}

constexpr std::size_t kSimilarityScanLimit = 200'000;  // lines; the scan is O(lines x length)

// Lets the key table be searched with a string_view (no copy per file line).
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

std::string describe_ambiguous(std::span<const std::size_t> starts, std::size_t section_lines, std::string_view path) {
  return std::string(path) + ": the EDIT section (" + plural(section_lines, "line") + ") occurs " +
         std::to_string(starts.size()) + " times, starting at lines " + line_list(starts) +
         ". Add the lines just before or after the change, in both sections, until the EDIT section occurs "
         "exactly once.";
}

Mismatch diagnose_missing(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                          std::size_t anchor, std::string_view path) {
  Mismatch m;
  const std::string p(path);
  const std::string n_lines = plural(section.size(), "line");

  for (Tolerance t : {Tolerance::whitespace, Tolerance::lookalike}) {
    std::vector<std::size_t> hits = find_tolerant(file, section, t, &m.comparisons);
    if (hits.empty()) continue;
    const bool ws = t == Tolerance::whitespace;
    m.reason = ws ? Reason::whitespace : Reason::near_match;
    m.line = hits[0] + 1;
    std::string how = ws ? "when white space (indentation, tabs vs spaces, trailing spaces) is ignored"
                         : "when white space and look-alike characters (quotes, dashes, invisible or "
                           "decomposed characters) are ignored";
    if (hits.size() == 1) {
      if (ws) m.whitespace_match = hits[0];
      m.diagnostic = p + ": the EDIT section (" + n_lines + ") does not occur exactly, but it matches " +
                     range(hits[0] + 1, section.size()) + " " + how + ":\n" +
                     window_report(file, section, hits[0], path) +
                     "Copy those lines exactly as the file has them" +
                     (ws ? " (or run with --fuzz whitespace to accept this difference)." : ".");
    } else {
      m.diagnostic = p + ": the EDIT section (" + n_lines + ") does not occur exactly; " + how + " it matches " +
                     std::to_string(hits.size()) + " places, starting at lines " + line_list(hits) +
                     ". The first of them:\n" + window_report(file, section, hits[0], path) +
                     "Copy the lines exactly as the file has them, with enough context to be unique.";
    }
    return m;
  }

  if (anchor > 0 && anchor < section.size()) {
    std::vector<std::size_t> hits = find_tolerant(file, section.first(anchor), Tolerance::exact, &m.comparisons);
    if (hits.size() == 1) {
      std::size_t first_diff = hits[0] + anchor;
      std::vector<Row> rows;
      if (const std::size_t band = band_for(section.size(), kAlignCells); band > 0)
        rows = align(file, section, static_cast<long long>(hits[0]), band, m.comparisons).rows;
      if (!span_of(rows)) rows = same_length(section.size(), file.size(), hits[0]);
      std::string report = place_report(file, section, rows, path, &first_diff);
      m.reason = Reason::old_mismatch;
      m.line = first_diff + 1;
      m.diagnostic = p + ": the anchor (the first " + plural(anchor, "line") +
                     ", the same in EDIT and REPL) occurs once, at " + range(hits[0] + 1, anchor) +
                     ", but the lines after it are not what your EDIT section says:\n" + report +
                     "Copy the old lines exactly as the file has them.";
      return m;
    }
  }

  // The closest place: the start line most section lines vote for. Each
  // file line whose text (white space and look-alikes aside) is a section
  // line's votes for the start that lines them up.
  struct Key {
    std::vector<std::size_t> at;  // its lines in the section
    std::size_t in_file = 0;      // how many file lines have it
    std::size_t first_in_file = 0;
  };
  std::unordered_map<std::string, std::uint32_t, KeyHash, std::equal_to<>> key_ids;
  std::vector<Key> keys;
  std::vector<std::uint32_t> section_key(section.size(), kNoKey);
  std::size_t nonblank = 0;
  for (std::size_t j = 0; j < section.size(); ++j) {
    std::string key = normalize_line(section[j], Tolerance::lookalike);
    if (key.empty()) continue;
    ++nonblank;
    auto [it, added] = key_ids.try_emplace(std::move(key), static_cast<std::uint32_t>(keys.size()));
    if (added) keys.emplace_back();
    keys[it->second].at.push_back(j);
    section_key[j] = it->second;
  }
  std::vector<std::uint32_t> file_key(file.size(), kNoKey);
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string_view t = trim(file[i]);
    if (t.empty()) continue;
    ++m.comparisons;
    auto it = is_ascii(t) ? key_ids.find(t) : key_ids.find(normalize_line(t, Tolerance::lookalike));
    if (it == key_ids.end()) continue;
    file_key[i] = it->second;
    if (keys[it->second].in_file++ == 0) keys[it->second].first_in_file = i;
  }

  // A line that occurs f times in the file and s times in the section casts
  // f x s votes: a file of `x` lines and a section of `x` lines would cost
  // file x section. Past a budget linear in both, the lines that occur most
  // often in the file (they say least about where the section belongs) do
  // not vote, and the diagnostic says so.
  std::vector<bool> votes_with(keys.size(), true);
  std::size_t total = 0;
  for (const Key& k : keys) total += k.in_file * k.at.size();
  const std::size_t budget = kVotesPerLine * (file.size() + section.size()) + kVotesFloor;
  std::size_t skipped_lines = 0, skipped_from = 0;  // section lines left out; the fewest times one occurs
  std::optional<std::uint32_t> rarest_skipped;
  if (total > budget) {
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
      if (rarest_skipped || spent + cost > budget) {
        if (!rarest_skipped) {
          rarest_skipped = order[g];
          skipped_from = keys[order[g]].in_file;
        }
        for (std::size_t x = g; x < end; ++x) {
          votes_with[order[x]] = false;
          skipped_lines += keys[order[x]].at.size();
        }
      } else {
        spent += cost;
      }
      g = end;
    }
  }
  // votes[s + section.size() - 1]: the votes for start line s (which may be
  // before the file's first line).
  std::vector<std::uint32_t> votes(file.size() + section.size(), 0);
  for (std::size_t i = 0; i < file.size(); ++i) {
    if (file_key[i] == kNoKey || !votes_with[file_key[i]]) continue;
    for (std::size_t j : keys[file_key[i]].at) {
      ++votes[i + section.size() - 1 - j];
      ++m.comparisons;
    }
  }
  // The places most lines vote for, a few, each more than half a band from
  // the others (the two halves of a place around a line the block invented
  // or left out vote for neighbouring starts, and one alignment covers
  // both); the one the alignment matches best is shown.
  const std::size_t band = band_for(section.size(), kAlignCells / kPlacesAligned);
  const long long apart = std::max<long long>(1, static_cast<long long>(band) / 2);
  std::vector<std::pair<long long, std::size_t>> places;  // (start, votes)
  for (std::size_t round = 0; round < kPlacesAligned; ++round) {
    long long at = 0;
    std::size_t most = 0;
    for (std::size_t v = 0; v < votes.size(); ++v) {
      if (votes[v] <= most) continue;
      const long long s = static_cast<long long>(v) - static_cast<long long>(section.size() - 1);
      if (std::any_of(places.begin(), places.end(), [&](const auto& pl) {
            return std::llabs(pl.first - s) <= apart;
          }))
        continue;
      at = s;
      most = votes[v];
    }
    m.comparisons += votes.size();
    if (most == 0) break;
    places.emplace_back(at, most);
    if (band == 0) break;  // no alignment: the most voted place is shown line for line
  }
  if (places.empty() && rarest_skipped) {
    // Only lines left out occur: line up the first file line with the rarest of them.
    const Key& k = keys[*rarest_skipped];
    places.emplace_back(static_cast<long long>(k.first_in_file) - static_cast<long long>(k.at.front()), 0);
  }

  if (!places.empty()) {
    auto clamp_start = [&](long long s) {
      std::size_t start = static_cast<std::size_t>(std::max(0LL, s));
      if (start + section.size() > file.size()) start = file.size() > section.size() ? file.size() - section.size() : 0;
      return start;
    };
    std::optional<Aligned> best;
    if (band > 0)
      for (const auto& pl : places) {
        Aligned a = align(file, section, static_cast<long long>(clamp_start(pl.first)), band, m.comparisons);
        if (!span_of(a.rows)) continue;
        if (!best || a.equal_nonblank > best->equal_nonblank ||
            (a.equal_nonblank == best->equal_nonblank && a.equal > best->equal))
          best = std::move(a);
      }
    std::vector<Row> rows;
    std::size_t matching = 0;
    if (best) {
      rows = std::move(best->rows);
      matching = best->equal_nonblank;
    } else {
      rows = same_length(section.size(), file.size(), clamp_start(places.front().first));
      for (const Row& r : rows)
        if (section_key[r.j] != kNoKey && file_key[r.i] == section_key[r.j]) ++matching;
      m.comparisons += rows.size();
    }
    const auto span = span_of(rows);
    std::string left_out;
    if (rarest_skipped)
      left_out = " (to bound the work, the " + plural(skipped_lines, "line") + " of your EDIT section that occur " +
                 std::to_string(skipped_from) +
                 " or more times in the file were not used to find this place; the count includes them)";
    bool near = matching * 2 >= nonblank;
    m.reason = near ? Reason::near_match : Reason::anchor_not_found;
    m.line = span->first + 1;
    m.diagnostic = p + ": the EDIT section (" + n_lines + ") does not occur in the file. The closest place is " +
                   range(span->first + 1, span->second - span->first + 1) + ", where " + std::to_string(matching) +
                   " of its " + std::to_string(nonblank) + " non-blank lines match" + left_out + ":\n" +
                   place_report(file, section, rows, path) +
                   "Copy the lines exactly as the file has them now (an earlier block may have changed them).";
    return m;
  }

  m.reason = Reason::anchor_not_found;
  m.diagnostic = p + ": no line of the EDIT section (" + n_lines + ") occurs in the file (" +
                 plural(file.size(), "line") + ").";
  auto first = std::find_if(section.begin(), section.end(), [](std::string_view s) { return !trim(s).empty(); });
  if (first != section.end() && file.size() <= kSimilarityScanLimit) {
    std::string want = normalize_line(*first, Tolerance::lookalike);
    double best_score = 0.0;
    std::size_t best_line = 0;
    for (std::size_t i = 0; i < file.size(); ++i) {
      std::string_view t = trim(file[i]);
      if (t.size() * 2 < want.size() || t.size() > want.size() * 2) continue;
      double s = similarity(t, want);
      if (s > best_score) {
        best_score = s;
        best_line = i;
      }
    }
    if (best_score >= 0.5) {
      m.line = best_line + 1;
      m.diagnostic += " The line most like your first line is:\n" + quote_line(best_line + 1, file[best_line]) +
                      "\n  (" + describe_difference(file[best_line], *first) + ")";
    }
  }
  m.diagnostic += "\nCheck the path, and copy the lines from the file as it is now.";
  return m;
}

}  // namespace editproto
