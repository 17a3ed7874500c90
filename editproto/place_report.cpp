#include "editproto/place_report.hpp"

#include "editproto/diagnose.hpp"

#include <algorithm>

namespace editproto::detail {

namespace {

// The diff of the closest place: at most about this many steps, else this
// many lines of it.
constexpr std::size_t kDiffBudget = 4'000'000;
constexpr std::size_t kDiffLines = 200;

// Whether a row shows a difference.
bool differs(const std::vector<std::string_view>& file, std::span<const std::string_view> section, const Row& r) {
  return r.kind != Row::pair || file[r.i] != section[r.j];
}

}  // namespace

std::string place_report(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                         const std::vector<Row>& rows, std::string_view path, std::size_t* first_diff) {
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
                          std::size_t start, std::string_view path, std::size_t* first_diff) {
  return place_report(file, section, same_length(section.size(), file.size(), start), path, first_diff);
}

}  // namespace editproto::detail
