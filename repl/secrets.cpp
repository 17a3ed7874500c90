#include "repl/secrets.hpp"

#include <openssl/sha.h>
#include <sys/random.h>

#include <cerrno>
#include <stdexcept>

namespace repl {

namespace {

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

}  // namespace

std::string random_hex(std::size_t digits) {
  std::string bytes((digits + 1) / 2, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed");
    }
    got += static_cast<std::size_t>(r);
  }
  std::string out = hex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  out.resize(digits);
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  ::SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return hex(digest, sizeof digest);
}

bool constant_time_equal(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const unsigned char x = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

}  // namespace repl
