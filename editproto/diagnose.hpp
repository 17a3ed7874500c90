// Diagnostics for blocks that do not match, written for the LLM that has to
// fix its block from them alone: the real lines with their numbers, the exact
// difference, and a unified diff.
#pragma once

#include "editproto/option_names.hpp"
#include "editproto/reason.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editproto {

// How much a comparison forgives.
enum class Tolerance { exact, whitespace, lookalike };

std::string normalize_line(std::string_view line, Tolerance t);

// Start lines where `section` occurs when lines are compared under `t`.
std::vector<std::size_t> find_tolerant(const std::vector<std::string_view>& file,
                                       std::span<const std::string_view> section, Tolerance t,
                                       std::size_t* comparisons = nullptr);

// The exact difference between a line in the file and the block's line:
// trailing white space, tabs vs spaces, indentation, differing code points
// ("U+2019 RIGHT SINGLE QUOTATION MARK in the file vs U+0027 APOSTROPHE in
// your block at column 12"), NFD vs NFC, zero-width characters. Empty when the
// lines are equal.
std::string describe_difference(std::string_view file_line, std::string_view block_line);

// A line as quoted in diagnostics: number, then the text in quotes with
// control characters escaped, cut after 200 characters.
std::string quote_line(std::size_t number, std::string_view text);

// Unified diff from the block's EDIT section (-) to the file's lines (+),
// numbered as in the file (first_line is 1-based) and in the section
// (block_lines start at its line block_first).
std::string unified_diff(std::span<const std::string_view> block_lines, std::span<const std::string_view> file_lines,
                         std::size_t first_line, std::string_view path, std::size_t block_first = 1);

// Why `section` (the block's whole EDIT section, `anchor` lines of which are
// the anchor) does not occur exactly once in `file`.
struct Mismatch {
  Reason reason = Reason::anchor_not_found;
  std::optional<std::size_t> line;  // 1-based, the most useful place to look
  std::string diagnostic;
  // Set when the section occurs exactly once under whitespace tolerance.
  std::optional<std::size_t> whitespace_match;
  // Lines compared and votes counted: the work the diagnosis cost, which
  // tests and benchmarks check stays linear in the file and section sizes.
  std::size_t comparisons = 0;
};

// `syntax`: how a diagnostic names an option the reader may set (--fuzz).
Mismatch diagnose_missing(const std::vector<std::string_view>& file, std::span<const std::string_view> section,
                          std::size_t anchor, std::string_view path,
                          OptionSyntax syntax = OptionSyntax::command_line);

std::string describe_ambiguous(std::span<const std::size_t> starts, std::size_t section_lines,
                               std::string_view path);

}  // namespace editproto
