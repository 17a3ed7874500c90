// The report of a place where the EDIT section should be: each line that
// differs, in words, then a unified diff. Internal to the diagnostics
// (diagnose.hpp is their interface).
#pragma once

#include "editproto/alignment.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editproto::detail {

// The per-line differences of a place (up to 8), then the diff. The first
// differing file line goes to `first_diff`.
std::string place_report(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                         const std::vector<Row>& rows, std::string_view path, std::size_t* first_diff = nullptr);

// The report of the place from `start`, line for line.
std::string window_report(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                          std::size_t start, std::string_view path, std::size_t* first_diff = nullptr);

}  // namespace editproto::detail
