// Matching that forgives: lines compared with white space (and look-alike
// characters) aside, and the section looked for under that comparison.
#include "editproto/diagnose.hpp"

#include "editproto/line_search.hpp"
#include "editproto/path_line.hpp"
#include "editproto/unicode.hpp"

namespace editproto {

std::string normalize_line(std::string_view line, Tolerance t) {
  switch (t) {
    case Tolerance::exact: return std::string(line);
    case Tolerance::whitespace: return std::string(trim(line));
    case Tolerance::lookalike:
      if (unicode::is_ascii(line)) return std::string(trim(line));
      return std::string(trim(unicode::fold(trim(line))));
  }
  return std::string(line);
}

std::vector<std::size_t> find_tolerant(const std::vector<std::string_view>& file,
                                       std::span<const std::string_view> section, Tolerance t,
                                       std::size_t* comparisons) {
  std::size_t local = 0;
  std::vector<std::size_t> found;
  if (section.empty() || section.size() > file.size()) return found;
  // Each line is normalised once, and the normalised section is looked for
  // in one pass over the normalised file.
  std::vector<std::string> want;
  want.reserve(section.size());
  for (std::string_view s : section) want.push_back(normalize_line(s, t));
  const std::vector<std::string_view> keys(want.begin(), want.end());
  LineMatcher matcher(keys, comparisons ? *comparisons : local);
  std::string folded;
  for (std::size_t i = 0; i < file.size(); ++i) {
    std::string_view key = file[i];
    if (t == Tolerance::whitespace || (t == Tolerance::lookalike && unicode::is_ascii(key))) {
      key = trim(key);
    } else if (t == Tolerance::lookalike) {
      folded = normalize_line(key, t);
      key = folded;
    }
    if (matcher.feed(key)) found.push_back(i + 1 - section.size());
  }
  return found;
}

}  // namespace editproto
