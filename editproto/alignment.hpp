// How the EDIT section lines up with the file at a place: line for line, or
// aligned so that a line the block invented or left out is named where it
// is. Internal to the diagnostics (diagnose.hpp is their interface).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace editproto::detail {

// The alignment of a place: at most this many lines missing on either side,
// within this many steps in all, over this many places.
constexpr std::size_t kBand = 8;
constexpr std::size_t kAlignCells = 4'000'000;
constexpr std::size_t kPlacesAligned = 4;

// The widest band up to kBand whose alignment fits in `cells` steps; 0 when
// even a band of 1 does not (a section of over a million lines).
std::size_t band_for(std::size_t section_lines, std::size_t cells);

// How the EDIT section lines up with the file at one place: each section
// line against a file line (equal or not), a section line the file does not
// have there, or a file line the section leaves out. In order.
struct Row {
  enum Kind { pair, missing, left_out } kind;
  std::size_t j;  // section line; for left_out, the section line after it
  std::size_t i;  // file line; for missing, the file line after it
};

// The same number of file lines from `start`, line for line.
std::vector<Row> same_length(std::size_t section_size, std::size_t file_size, std::size_t start);

// The file lines the rows cover: [first, last], or nothing.
std::optional<std::pair<std::size_t, std::size_t>> span_of(const std::vector<Row>& rows);

// The EDIT section aligned with the file around a place, allowing up to
// `band` lines missing on either side: the best alignment (the most of the
// lines set against each other matching: a whole line when they are equal,
// white space and look-alikes aside, else the share of it that matches)
// among those within `band` lines of the place's diagonal, preferring lines
// on it. It costs (section + 1) x (2 x band + 1) steps, and the shares of the
// lines compared, at most 8 steps a cell (past them, unequal lines count
// nothing), counted in `work`, so a line the block invented or left out is
// named where it is, instead of every line after it being compared with its
// neighbour.
struct Aligned {
  std::vector<Row> rows;
  std::size_t equal = 0;           // section lines equal to their file line
  std::size_t equal_nonblank = 0;  // of which not blank
  std::uint64_t share = 0;         // over non-blank section lines against a file line (kWholeLine: equal)
};

Aligned align(const std::vector<std::string_view>& file, std::span<const std::string_view> section, long long start,
              std::size_t band, std::size_t& work);

}  // namespace editproto::detail
