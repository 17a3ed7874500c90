// Base64 (RFC 4648, the standard alphabet) decoded: the browser's
// screenshots and the MCP door's encoded header values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace services {

// The bytes `text` encodes, up to its first '='; nullopt when a character
// is outside the alphabet.
inline std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  unsigned bits = 0, acc = 0;
  for (char c : text) {
    int d = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
            : c == '='             ? -2
                                   : -1;
    if (d == -1) return std::nullopt;
    if (d == -2) break;
    acc = (acc << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace services
