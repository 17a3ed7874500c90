#include "editproto/path_line.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace editproto {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view leading_ws(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(0, i);
}

bool is_fence_line(std::string_view line) {
  line = trim(line);
  if (line.size() < 3) return false;
  char c = line[0];
  if (c != '`' && c != '~') return false;
  return line[1] == c && line[2] == c;
}

namespace {

bool strip_pair(std::string_view& s, std::string_view mark) {
  if (s.size() > 2 * mark.size() && s.starts_with(mark) && s.ends_with(mark)) {
    s = trim(s.substr(mark.size(), s.size() - 2 * mark.size()));
    return true;
  }
  return false;
}

bool strip_backticks(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] == '`') ++n;
  if (n == 0 || s.size() <= 2 * n) return false;
  std::string_view tail = s.substr(s.size() - n);
  if (tail.find_first_not_of('`') != std::string_view::npos) return false;
  if (s[s.size() - n - 1] == '`') return false;  // unbalanced run
  s = trim(s.substr(n, s.size() - 2 * n));
  return true;
}

// Extension-less names that are files in practice: they count as paths even
// with a trailing colon, which makes any other single word a label ("Fix:").
constexpr std::array<std::string_view, 12> kBareNames = {
    "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Jenkinsfile",
    "Vagrantfile", "Gemfile", "Rakefile", "Procfile", "LICENSE", "README"};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }
bool is_separator(char c) { return c == '/' || c == '\\'; }

// "name.ext" or ".dotfile": a final dot followed only by letters and digits.
bool has_extension(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= name.size()) return false;
  for (char c : name.substr(dot + 1))
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) return false;
  return true;
}

}  // namespace

PathLine read_path_line(std::string_view line) {
  auto no = [](std::string_view why) { return PathLine{std::nullopt, why}; };
  std::string_view s = trim(line);
  if (s.empty()) return no("it is blank");
  if (s.size() > 400) return no("it is 200 characters or longer");

  // A Markdown heading marker: 1-6 '#' then a space.
  if (s[0] == '#') {
    std::size_t n = s.find_first_not_of('#');
    if (n != std::string_view::npos && n <= 6 && (s[n] == ' ' || s[n] == '\t')) s = trim(s.substr(n));
  }

  bool quoted = false, colon = false;
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    if (!s.empty() && s.back() == ':') {
      s = trim(s.substr(0, s.size() - 1));
      colon = changed = true;
    }
    changed |= strip_pair(s, "**");
    changed |= strip_pair(s, "__");
    if (strip_backticks(s)) {
      quoted = true;
      changed = true;
    }
    if (!changed) break;
  }

  if (s.empty()) return no("it holds nothing but decoration");
  if (s.size() >= 200) return no("it is 200 characters or longer");
  for (std::string_view bad : {"#", "//", "*", "-", ">"})
    if (s.starts_with(bad)) return no("it starts with #, //, *, - or >, as comments, list items and quotes do");
  if (s.find("://") != std::string_view::npos) return no("it is a URL");
  for (char c : s)
    if (c == '`' || c == '<' || c == '>' || c == '|' || c == '"' || c == '*' || c == '?')
      return no("it holds a character paths here never have (` < > | \" * ?)");

  // A name has a letter or a digit (any non-ASCII character counts): "}" or
  // "..." alone is code or punctuation.
  if (std::none_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
      }))
    return no("it has no letter or digit");
  const bool has_separator = std::any_of(s.begin(), s.end(), is_separator);
  const bool has_blank = std::any_of(s.begin(), s.end(), is_blank);
  const PathLine yes{std::string(s), {}};
  if (!has_blank) {
    if (has_separator) return yes;
    // A single file name: root files without an extension (COPYING, wscript) count.
    if (s.back() == '.') return no("it ends with a full stop, as a sentence does");
    if (colon && !quoted && !has_extension(s) && std::find(kBareNames.begin(), kBareNames.end(), s) == kBareNames.end())
      return no("it is a single word ending with ':', a label such as \"Here:\" (a file name without an extension "
                "goes alone on the line, without the colon)");
    return yes;
  }
  if (quoted) return yes;
  // White space outside backticks: a path only when it cannot be a sentence.
  if (!has_separator)
    return no("it has white space but no / or \\, as prose does (put a path with spaces in backticks)");
  if (colon) return no("it has white space and ends with ':', as a sentence that introduces code does");
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool word_end = i + 1 == s.size() || is_blank(s[i + 1]);
    if (word_end && (c == ',' || c == ';' || c == ':' || c == '!' || c == '.'))
      return no("a word in it ends with ',', ';', ':', '!' or '.', as in a sentence");
    if (is_separator(c) && ((i > 0 && is_blank(s[i - 1])) || (i + 1 < s.size() && is_blank(s[i + 1]))))
      return no("it has white space next to a / or \\, as prose does");
  }
  const std::size_t last = s.find_last_of("/\\");
  if (!has_extension(s.substr(last + 1)))
    return no("it has white space and does not end in a file name with an extension (put such a path in backticks)");
  return yes;
}

std::optional<std::string> extract_path(std::string_view line) { return read_path_line(line).path; }

}  // namespace editproto
