// Secrets and how they are compared: random hex from the kernel, SHA-256,
// and an equality whose time does not depend on where the inputs differ.
// The cookie, the workspace nonce, page instance ids and their secrets all
// come from here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace repl {

// `digits` random hex digits, from the kernel (getrandom): never from a
// seeded generator, whose outputs predict one another.
std::string random_hex(std::size_t digits);

// The SHA-256 of `bytes`, as 64 hex digits.
std::string sha256_hex(std::string_view bytes);

// Whether `given` equals `expected`, comparing every byte of `expected`
// whatever `given`'s length.
bool constant_time_equal(std::string_view given, std::string_view expected);

}  // namespace repl
