// The placeholder guard: a line that stands for code instead of being code
// ("// ... existing code ...", "rest of the code", a lone "...").
#pragma once

#include <string_view>

namespace editproto {

enum class Placeholder {
  none,
  // A bare line of dots ("...", U+2026): code in some languages (Python's
  // Ellipsis, a stub's body), so it counts only where lines go missing.
  dots,
  // Dots in a comment, or a line made mostly of an elision phrase ("...
  // existing code ...", "// rest of the file unchanged").
  elision,
};

Placeholder placeholder_kind(std::string_view line);

inline bool is_placeholder_line(std::string_view line) { return placeholder_kind(line) != Placeholder::none; }

}  // namespace editproto
