// The placeholder guard: a REPL line that stands for code instead of being
// code ("// ... existing code ...", "rest of the code", a lone "...").
#pragma once

#include <string_view>

namespace editproto {

bool is_placeholder_line(std::string_view line);

}  // namespace editproto
