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

// Extension-less names that are files in practice.
constexpr std::array<std::string_view, 12> kBareNames = {
    "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Jenkinsfile",
    "Vagrantfile", "Gemfile", "Rakefile", "Procfile", "LICENSE", "README"};

bool looks_like_bare_file_name(std::string_view s) {
  if (std::find(kBareNames.begin(), kBareNames.end(), s) != kBareNames.end()) return true;
  // name.ext or .dotfile: a dot followed by at least one alphanumeric, and the
  // name does not end in a dot (that is a sentence).
  auto dot = s.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= s.size()) return false;
  unsigned char after = static_cast<unsigned char>(s[dot + 1]);
  return std::isalnum(after) != 0;
}

}  // namespace

std::optional<std::string> extract_path(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || s.size() > 400) return std::nullopt;

  // A Markdown heading marker: 1-6 '#' then a space.
  if (s[0] == '#') {
    std::size_t n = s.find_first_not_of('#');
    if (n != std::string_view::npos && n <= 6 && (s[n] == ' ' || s[n] == '\t')) s = trim(s.substr(n));
  }

  bool quoted = false;
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    if (!s.empty() && s.back() == ':') {
      s = trim(s.substr(0, s.size() - 1));
      changed = true;
    }
    changed |= strip_pair(s, "**");
    changed |= strip_pair(s, "__");
    if (strip_backticks(s)) {
      quoted = true;
      changed = true;
    }
    if (!changed) break;
  }

  if (s.empty() || s.size() >= 200) return std::nullopt;
  for (std::string_view bad : {"#", "//", "*", "-", ">"})
    if (s.starts_with(bad)) return std::nullopt;
  if (s.find("://") != std::string_view::npos) return std::nullopt;  // a URL
  for (char c : s) {
    if (c == '`' || c == '<' || c == '>' || c == '|' || c == '"' || c == '*' || c == '?') return std::nullopt;
    if (!quoted && (c == ' ' || c == '\t')) return std::nullopt;  // prose, unless `quoted`
  }
  bool has_separator = s.find_first_of("/\\") != std::string_view::npos;
  if (!has_separator && !looks_like_bare_file_name(s)) return std::nullopt;
  return std::string(s);
}

}  // namespace editproto
