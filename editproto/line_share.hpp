// How much of a line matches another: the ranking of closest places counts
// it, so that a line with a typo still says where the section belongs.
// Internal to the diagnostics (diagnose.hpp is their interface).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace editproto::detail {

// The share of a whole line: kWholeLine for equal lines.
constexpr std::uint32_t kWholeLine = 1024;

// The share of `a` and `b` (white space at either end aside) that matches:
// their common prefix and suffix (up to 256 bytes each), over the longer
// one, in [kWholeLine / 2, kWholeLine); 0 when less than half matches.
// Costs at most the shorter one's length and 512 steps, added to `work`.
std::uint32_t line_share(std::string_view a, std::string_view b, std::size_t& work);

}  // namespace editproto::detail
