// Reading part of a file the REPL keeps (a chat log, an events log) by
// offset, for readers that never take a whole log in memory.
#pragma once

#include "repl/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace repl {

// Up to `n` bytes of `fd` from byte `at`; fewer at the end of the file.
// Error::io naming `what` ("the chat log") when the read fails.
Result<std::string> read_at(int fd, std::uint64_t at, std::size_t n, std::string_view what);

}  // namespace repl
