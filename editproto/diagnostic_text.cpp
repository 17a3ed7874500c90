// How diagnostics show lines: a line quoted with its number, a unified diff,
// a count of things.
#include "editproto/diagnostic_text.hpp"

#include "editproto/diagnose.hpp"
#include "editproto/unicode.hpp"

#include <dtl/dtl.hpp>

#include <cstdio>

namespace editproto {

namespace detail {

std::string plural(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

}  // namespace detail

std::string quote_line(std::size_t number, std::string_view text) {
  std::string out = "  " + std::to_string(number) + " | ";
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (shown == 200) {
      out += "... (" + std::to_string(unicode::count_code_points(text.substr(i))) + " more characters)";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
    } else {
      std::size_t len = unicode::decode(text, i).length;
      out.append(text.substr(i, len));
      i += len;
    }
    ++shown;
  }
  return out;
}

std::string unified_diff(std::span<const std::string_view> block_lines, std::span<const std::string_view> file_lines,
                         std::size_t first_line, std::string_view path, std::size_t block_first) {
  std::vector<std::string> a(block_lines.begin(), block_lines.end());
  std::vector<std::string> b(file_lines.begin(), file_lines.end());
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.compose();
  diff.composeUnifiedHunks();
  std::string out = "--- your EDIT section\n+++ " + std::string(path) + " (lines " + std::to_string(first_line) +
                    "-" + std::to_string(first_line + file_lines.size() - 1) + ")\n";
  for (const auto& hunk : diff.getUniHunks()) {
    out += "@@ -" + std::to_string(hunk.a + static_cast<long long>(block_first) - 1) + "," + std::to_string(hunk.b) + " +" +
           std::to_string(hunk.c + static_cast<long long>(first_line) - 1) + "," + std::to_string(hunk.d) + " @@\n";
    auto emit = [&out](const auto& elems) {
      for (const auto& e : elems) {
        out += e.second.type == dtl::SES_ADD ? '+' : e.second.type == dtl::SES_DELETE ? '-' : ' ';
        out += e.first;
        out += '\n';
      }
    };
    emit(hunk.common[0]);
    emit(hunk.change);
    emit(hunk.common[1]);
  }
  return out;
}

}  // namespace editproto
