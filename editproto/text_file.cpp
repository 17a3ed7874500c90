#include "editproto/text_file.hpp"

#include "editproto/unicode.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace editproto {

namespace {

// Line and column (1-based) of a byte offset, for encoding errors.
std::pair<std::size_t, std::size_t> line_col(std::string_view s, std::size_t offset) {
  std::size_t line = 1 + static_cast<std::size_t>(std::count(s.begin(), s.begin() + offset, '\n'));
  std::size_t start = s.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = (start == std::string_view::npos || offset == 0) ? 0 : start + 1;
  return {line, offset - start + 1};
}

}  // namespace

bool looks_binary(std::string_view bytes) {
  return bytes.substr(0, binary_probe_bytes).find('\0') != std::string_view::npos;
}

std::optional<Failure> not_text(const std::string& path, std::string_view bytes) {
  if (looks_binary(bytes))
    return Failure{Reason::binary, path + " is a binary file (it has a NUL byte in its first 8 KiB); "
                                          "edit blocks only change text files"};
  if (std::size_t bad = unicode::find_invalid_utf8(bytes); bad != std::string_view::npos) {
    auto [line, col] = line_col(bytes, bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(bytes[bad]));
    return Failure{Reason::encoding, path + " is not valid UTF-8 (byte " + hex + " at line " + std::to_string(line) +
                                         ", byte " + std::to_string(col) + "); edit blocks only change UTF-8 text files"};
  }
  return std::nullopt;
}

}  // namespace editproto
