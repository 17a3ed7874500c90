// The little Unicode the diagnostics need: UTF-8 decoding and validation,
// folding of look-alike characters, and names for the code points that most
// often make an LLM's copy differ from the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace editproto::unicode {

struct CodePoint {
  char32_t value = 0;
  std::size_t length = 1;  // bytes consumed; 1 for an invalid byte
  bool valid = false;
};

CodePoint decode(std::string_view s, std::size_t pos);

bool is_ascii(std::string_view s);

// Code points in `s` (an invalid byte counts as one).
std::size_t count_code_points(std::string_view s);

// Offset of the first byte that is not part of valid UTF-8, or npos.
std::size_t find_invalid_utf8(std::string_view s);

// "U+2019 RIGHT SINGLE QUOTATION MARK" (the name when known).
std::string describe(char32_t cp);

bool is_zero_width(char32_t cp);
bool is_combining_mark(char32_t cp);

// The character a look-alike stands for (U+2019 -> '\''), or the input.
char32_t ascii_lookalike(char32_t cp);

// Composes base + combining mark into its precomposed form (NFC for the Latin
// letters models meet), or 0 when there is none.
char32_t compose(char32_t base, char32_t mark);

// Line folded for "near match" comparison: NFC-composed, look-alikes mapped to
// ASCII, zero-width characters removed.
std::string fold(std::string_view s);

void append_utf8(std::string& out, char32_t cp);

// The text with every invalid byte replaced by U+FFFD (for JSON output).
std::string to_valid_utf8(std::string_view s);

}  // namespace editproto::unicode
