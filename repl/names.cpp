#include "repl/names.hpp"



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

bool valid_id(std::string_view id) {
  if (id.size() < 4 || id.size() > 16) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace repl
