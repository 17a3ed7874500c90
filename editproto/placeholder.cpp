#include "editproto/placeholder.hpp"

#include "editproto/path_line.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace editproto {

namespace {
constexpr std::array<std::string_view, 9> kCommentOpeners = {"//", "/*", "<!--", "{/*", "#", "--", ";", "*", "%"};
constexpr std::array<std::string_view, 4> kCommentClosers = {"*/}", "*/", "-->", "#}"};
constexpr std::array<std::string_view, 14> kPhrases = {
    "existing code",   "rest of the code", "rest of code",    "rest of the file", "rest of file",
    "remaining code",  "unchanged code",   "code unchanged",  "same as before",   "previous code",
    "keep existing",   "other code",       "rest unchanged",  "remains the same"};

std::string_view strip_dots(std::string_view s) {
  for (bool changed = true; changed;) {
    changed = false;
    s = trim(s);
    for (std::string_view dots : {"...", "\xE2\x80\xA6"}) {  // "..." and U+2026
      if (s.starts_with(dots)) { s.remove_prefix(dots.size()); changed = true; }
      if (s.ends_with(dots)) { s.remove_suffix(dots.size()); changed = true; }
    }
  }
  return s;
}

// Letters and digits (any non-ASCII character counts as one): what "mostly"
// is measured in, so spacing and punctuation do not tip the balance.
std::size_t letters(std::string_view s) {
  std::size_t n = 0;
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || (c >= 0x80 && (c & 0xC0) != 0x80)) ++n;
  }
  return n;
}

}  // namespace

Placeholder placeholder_kind(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || s.size() > 100) return Placeholder::none;
  bool commented = false;
  for (std::string_view o : kCommentOpeners)
    if (s.starts_with(o)) {
      s = trim(s.substr(o.size()));
      commented = true;
      break;
    }
  for (std::string_view c : kCommentClosers)
    if (s.ends_with(c)) {
      s = trim(s.substr(0, s.size() - c.size()));
      break;
    }
  bool had_dots = s.find("...") != std::string_view::npos || s.find("\xE2\x80\xA6") != std::string_view::npos;
  std::string_view core = strip_dots(s);
  if (core.empty()) {  // "...", "// ...", "# …"
    if (!had_dots) return Placeholder::none;
    return commented ? Placeholder::elision : Placeholder::dots;
  }
  if (!commented && !had_dots) return Placeholder::none;  // a phrase in real code, not a placeholder
  std::string lower(core);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Mostly the phrase: a real comment that merely contains one ("and then
  // write out the rest of the file") is not a placeholder.
  std::size_t phrase = 0;
  for (std::string_view p : kPhrases)
    if (lower.find(p) != std::string::npos) phrase = std::max(phrase, letters(p));
  return phrase > 0 && 2 * phrase >= letters(core) ? Placeholder::elision : Placeholder::none;
}

}  // namespace editproto
