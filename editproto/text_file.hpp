// Whether a file's bytes are text that edit blocks change: the one test the
// edit engine applies before it edits a file, shared by everything that
// reads workspace files for an agent (the file ops), so that a file an
// agent can read is a file its blocks can change.
#pragma once

#include "editproto/reason.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace editproto {

// How much of a file's start the binary test looks at.
inline constexpr std::size_t binary_probe_bytes = 8192;

// A NUL byte in the first binary_probe_bytes: a binary file.
bool looks_binary(std::string_view bytes);

// Why the file at `path` with `bytes` is not text edit blocks change:
// binary (looks_binary) or encoding (not UTF-8, naming the line and byte);
// nullopt when it is text.
std::optional<Failure> not_text(const std::string& path, std::string_view bytes);

}  // namespace editproto
