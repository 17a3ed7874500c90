// Why an EDIT section does not occur exactly once, in the order of the
// explanations: a match that forgives white space or look-alikes, an anchor
// that occurs once, the closest place, and else the line most like the
// section's first.
#include "editproto/diagnose.hpp"

#include "editproto/alignment.hpp"
#include "editproto/closest_place.hpp"
#include "editproto/diagnostic_text.hpp"
#include "editproto/path_line.hpp"
#include "editproto/place_report.hpp"

#include <algorithm>
#include <cstdint>

namespace editproto {

using namespace detail;

namespace {

// Places listed for a section that occurs more than once.
constexpr std::size_t kPlacesListed = 20;

constexpr std::size_t kSimilarityScanLimit = 200'000;  // lines; the scan is O(lines x length)

std::string range(std::size_t first, std::size_t count) {
  return count <= 1 ? "line " + std::to_string(first) : "lines " + std::to_string(first) + "-" +
                                                             std::to_string(first + count - 1);
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

// Steps 1 to 3: the section matches when white space (then look-alikes too)
// is ignored, at one place or at several.
bool tolerant_match(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                    std::string_view path, OptionSyntax syntax, Mismatch& m) {
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
                     (ws && syntax != OptionSyntax::none
                          ? " (or run with " + option_named(syntax, "fuzz", "whitespace") +
                                " to accept this difference)."
                          : ".");
    } else {
      m.diagnostic = p + ": the EDIT section (" + n_lines + ") does not occur exactly; " + how + " it matches " +
                     std::to_string(hits.size()) + " places, starting at lines " + line_list(hits) +
                     ". The first of them:\n" + window_report(file, section, hits[0], path) +
                     "Copy the lines exactly as the file has them, with enough context to be unique.";
    }
    return true;
  }
  return false;
}

// Step 4: the anchor occurs once, and the old lines after it differ.
bool anchored_mismatch(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                       std::size_t anchor, std::string_view path, Mismatch& m) {
  if (anchor == 0 || anchor >= section.size()) return false;
  std::vector<std::size_t> hits = find_tolerant(file, section.first(anchor), Tolerance::exact, &m.comparisons);
  if (hits.size() != 1) return false;
  std::size_t first_diff = hits[0] + anchor;
  std::vector<Row> rows;
  if (const std::size_t band = band_for(section.size(), kAlignCells); band > 0)
    rows = align(file, section, static_cast<long long>(hits[0]), band, m.comparisons).rows;
  if (!span_of(rows)) rows = same_length(section.size(), file.size(), hits[0]);
  std::string report = place_report(file, section, rows, path, &first_diff);
  m.reason = Reason::old_mismatch;
  m.line = first_diff + 1;
  m.diagnostic = std::string(path) + ": the anchor (the first " + plural(anchor, "line") +
                 ", the same in EDIT and REPL) occurs once, at " + range(hits[0] + 1, anchor) +
                 ", but the lines after it are not what your EDIT section says:\n" + report +
                 "Copy the old lines exactly as the file has them.";
  return true;
}

// Step 5: the closest place, where the most section lines are.
bool closest_place_mismatch(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                            std::string_view path, Mismatch& m) {
  std::optional<ClosestPlace> place = closest_place(file, section, m.comparisons);
  if (!place) return false;
  const auto span = span_of(place->rows);
  std::string left_out;
  if (place->left_out)
    left_out = " (to bound the work, the " + plural(place->skipped_lines, "line") +
               " of your EDIT section that occur " + std::to_string(place->skipped_from) +
               " or more times in the file were not used to find this place; the count includes them)";
  std::string as_close;
  if (!place->as_close.empty())
    as_close = "; as much of it matches at " + plural(place->as_close.size(), "other place") + ", starting at " +
               (place->as_close.size() == 1 ? "line " : "lines ") + line_list(place->as_close);
  bool near = place->matching * 2 >= place->nonblank;
  m.reason = near ? Reason::near_match : Reason::anchor_not_found;
  m.line = span->first + 1;
  m.diagnostic = std::string(path) + ": the EDIT section (" + plural(section.size(), "line") +
                 ") does not occur in the file. The closest place is " +
                 range(span->first + 1, span->second - span->first + 1) + ", where " +
                 std::to_string(place->matching) + " of its " + std::to_string(place->nonblank) +
                 " non-blank lines match" + left_out + as_close + ":\n" +
                 place_report(file, section, place->rows, path) +
                 "Copy the lines exactly as the file has them now (an earlier block may have changed them).";
  return true;
}

// Step 6: no line of the section occurs; the line most like its first
// non-blank one is quoted, if any is alike enough.
void no_line_matches(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                     std::string_view path, Mismatch& m) {
  m.reason = Reason::anchor_not_found;
  m.diagnostic = std::string(path) + ": no line of the EDIT section (" + plural(section.size(), "line") +
                 ") occurs in the file (" + plural(file.size(), "line") + ").";
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
}

}  // namespace

std::string describe_ambiguous(std::span<const std::size_t> starts, std::size_t section_lines, std::string_view path) {
  return std::string(path) + ": the EDIT section (" + plural(section_lines, "line") + ") occurs " +
         std::to_string(starts.size()) + " times, starting at lines " + line_list(starts) +
         ". Add the lines just before or after the change, in both sections, until the EDIT section occurs "
         "exactly once.";
}

Mismatch diagnose_missing(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                          std::size_t anchor, std::string_view path, OptionSyntax syntax) {
  Mismatch m;
  if (tolerant_match(file, section, path, syntax, m) || anchored_mismatch(file, section, anchor, path, m) ||
      closest_place_mismatch(file, section, path, m))
    return m;
  no_line_matches(file, section, path, m);
  return m;
}

}  // namespace editproto
