// The benchmark corpus: a large source file made of real header text, edit
// sites picked with a fixed seed, and the same edits written both as an
// edit-block response and as a unified diff. Everything here is a pure
// function of the header tree and the seed, so two runs build identical bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

// Text appended to an edited line; no header used in the corpus contains it,
// so every edited line is new to the file.
inline constexpr std::string_view kEditMark = "editgate-bench edit";

// Header files under a folder, concatenated in sorted path order.
class Source {
 public:
  // Reads headers (.h, .hpp, .ipp) under `root` in byte-wise sorted path
  // order until `lines` lines are collected, then cuts at exactly `lines`.
  // Files that are not clean UTF-8 text with LF line ends (a NUL or CR byte,
  // invalid UTF-8, or kEditMark inside) are skipped; a file without a final
  // newline gets one.
  static Source collect(const std::filesystem::path& root, std::size_t lines);

  std::size_t lines() const { return starts_.size() - 1; }
  // Line i (0-based) without its '\n'.
  std::string_view line(std::size_t i) const {
    return std::string_view(text_).substr(starts_[i], starts_[i + 1] - starts_[i] - 1);
  }
  // The first n lines, each with its '\n'.
  std::string_view prefix(std::size_t n) const { return std::string_view(text_).substr(0, starts_[n]); }

  std::size_t files_used() const { return files_used_; }
  std::size_t files_skipped() const { return files_skipped_; }
  const std::string& first_file() const { return first_file_; }
  const std::string& last_file() const { return last_file_; }

 private:
  std::string text_;
  std::vector<std::size_t> starts_;  // starts_[i]: offset of line i; back() == text_.size()
  std::size_t files_used_ = 0;
  std::size_t files_skipped_ = 0;
  std::string first_file_, last_file_;
};

// One case: the first `lines` lines of a Source with `count` one-line edits.
struct EditCase {
  std::size_t lines = 0;
  std::vector<std::size_t> sites;  // 0-based edited lines, ascending
  std::string original;            // the file before
  std::string expected;            // the file after every edit
  std::string response;            // edit blocks, one per site, in file order
  std::string diff;                // unified diff, 3 lines of context
  std::size_t hunks = 0;           // hunks in `diff` (== sites.size() when none merged)
};

// Picks `count` lines of the first `lines` lines of `src` to edit. Each edit
// site i has a 3-line window (lines i-2, i-1, i) that occurs exactly once in
// that prefix, a full 3-line context on both sides, and sites are at least
// `spacing` lines apart. Deterministic for a given seed. Throws when the
// prefix is too small for the request.
std::vector<std::size_t> pick_sites(const Source& src, std::size_t lines, std::size_t count, std::uint64_t seed,
                                    std::size_t spacing = 8);

// Builds the file, the expected result, the response and the diff; `path` is
// the file's name in both (the diff uses a/ and b/ prefixes).
EditCase make_case(const Source& src, std::size_t lines, std::vector<std::size_t> sites, std::string_view path);

// The edit made at a site: the line with " /* editgate-bench edit N */"
// appended, N being the 1-based edit number.
std::string edited_line(std::string_view line, std::size_t n);

// A large response for the parser alone: every `per_block` lines of the
// first `lines` lines of `src` become one block whose REPL changes the last
// line. Returns the response and sets `blocks` to the number of blocks.
std::string wrap_as_blocks(const Source& src, std::size_t lines, std::size_t per_block, std::string_view path,
                           std::size_t& blocks);

}  // namespace bench
