#include "repl/names.hpp"

#include <sys/random.h>

#include <cerrno>
#include <stdexcept>

namespace repl {

std::string sanitize_name(std::string_view name) {
  std::string out;
  bool gap = false;
  for (char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c >= 'A' && c <= 'Z') {
      if (gap && !out.empty()) out += '-';
      gap = false;
      out += static_cast<char>(c - 'A' + 'a');
    } else if (alnum) {
      if (gap && !out.empty()) out += '-';
      gap = false;
      out += static_cast<char>(c);
    } else {
      gap = true;  // separators, punctuation and non-ASCII all become one hyphen
    }
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "page" : out;
}

editgit::Identity agent_identity(std::string_view agent) {
  std::string name(agent), local;
  for (char& c : name)
    if (c == '\n' || c == '\r') c = ' ';
  for (char c : agent) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    local += keep ? c : '-';
  }
  if (local.empty()) local = "agent";
  return {name, local + "@editgate.invalid"};
}

std::string random_hex(std::size_t digits) {
  // From the kernel: instance ids and their secrets must not be predictable
  // from one another (a seeded generator's output is).
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
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  out.resize(digits);
  return out;
}

bool valid_id(std::string_view id) {
  if (id.size() < 4 || id.size() > 16) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace repl
