// What the diagnosis's files share to word their messages. Internal to the
// diagnostics (diagnose.hpp is their interface).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace editproto::detail {

// "1 line", "3 lines".
std::string plural(std::size_t n, std::string_view one);

}  // namespace editproto::detail
