// The closest place to an EDIT section that does not occur in the file: the
// start line most section lines vote for, within a budget of votes linear in
// the file and section sizes. Internal to the diagnostics (diagnose.hpp is
// their interface).
#pragma once

#include "editproto/alignment.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace editproto::detail {

struct ClosestPlace {
  std::vector<Row> rows;       // how the section lines up there
  std::size_t matching = 0;    // its non-blank lines equal to their file line there
  std::size_t nonblank = 0;    // its non-blank lines
  // The first lines of the other places where as much of it matches (none
  // overlapping another), in file order: a tie nothing in the lines breaks.
  std::vector<std::size_t> as_close;
  // Set when, to bound the work, lines that occur often in the file did not
  // vote: how many section lines, and the fewest times one of them occurs.
  bool left_out = false;
  std::size_t skipped_lines = 0, skipped_from = 0;
};

// Nothing when no line of the section (white space and look-alikes aside)
// occurs in the file. The work done is added to `comparisons`.
std::optional<ClosestPlace> closest_place(const std::vector<std::string_view>& file,
                                          std::span<const std::string_view> section, std::size_t& comparisons);

}  // namespace editproto::detail
