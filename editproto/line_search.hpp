// Where a section of lines occurs in a file, in one pass over the file
// (Knuth-Morris-Pratt over lines). Checking every place where the section's
// first line occurs costs file x section line comparisons when lines repeat
// (a file of `x` lines and a section of `x` lines and a `z`); this costs at
// most 2 x (file + section), whatever the lines.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace editproto {

class LineMatcher {
 public:
  // `section` (not empty) must outlive the matcher; `comparisons` counts the
  // line comparisons made.
  LineMatcher(std::span<const std::string_view> section, std::size_t& comparisons)
      : section_(section), border_(section.size(), 0), comparisons_(comparisons) {
    // border_[j]: the length of the longest proper prefix of section[0..j]
    // that is also its suffix, where a partial match falls back to.
    for (std::size_t j = 1, k = 0; j < section.size(); ++j) {
      while (k > 0 && !same(section[j], section[k])) k = border_[k - 1];
      if (same(section[j], section[k])) ++k;
      border_[j] = k;
    }
  }

  // The file's next line, in order (compared once and not kept). True when
  // the section ends at it, so it started size() - 1 lines before.
  bool feed(std::string_view line) {
    while (matched_ > 0 && !same(line, section_[matched_])) matched_ = border_[matched_ - 1];
    if (same(line, section_[matched_])) ++matched_;
    if (matched_ < section_.size()) return false;
    matched_ = border_[matched_ - 1];  // matches may overlap
    return true;
  }

  std::size_t size() const { return section_.size(); }

 private:
  bool same(std::string_view a, std::string_view b) {
    ++comparisons_;
    return a == b;
  }

  std::span<const std::string_view> section_;
  std::vector<std::size_t> border_;
  std::size_t& comparisons_;
  std::size_t matched_ = 0;
};

}  // namespace editproto
