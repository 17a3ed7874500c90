#include "git/message.hpp"

namespace editgit {

namespace {

// "Key: value" as git reads a trailer line: a token of letters, digits and
// hyphens, a colon, a space.
bool trailer_line(std::string_view line, std::string_view* key = nullptr, std::string_view* value = nullptr) {
  std::size_t i = 0;
  while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') || (line[i] >= 'A' && line[i] <= 'Z') ||
                             (line[i] >= '0' && line[i] <= '9') || line[i] == '-'))
    ++i;
  if (i == 0 || i + 1 >= line.size() || line[i] != ':' || line[i + 1] != ' ') return false;
  if (key) *key = line.substr(0, i);
  if (value) *value = line.substr(i + 2);
  return true;
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    out.push_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  return out;
}

}  // namespace

std::string message_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? ' ' : c;
  }
  return out;
}

std::string compose_message(std::string_view summary, std::string_view body, const Trailers& trailers) {
  std::vector<std::string> text;
  for (std::string_view line : lines_of(body)) {
    std::string l = message_line(line);
    if (trailer_line(l) || l.starts_with("---")) l.insert(0, 1, ' ');
    if (!text.empty() || !blank(l)) text.push_back(std::move(l));
  }
  while (!text.empty() && blank(text.back())) text.pop_back();
  std::string out = message_line(summary) + "\n";
  if (!text.empty()) out += "\n";
  for (const std::string& l : text) out += l + "\n";
  if (!trailers.empty()) out += "\n";
  for (const auto& [k, v] : trailers) out += message_line(k) + ": " + message_line(v) + "\n";
  return out;
}

Trailers read_trailers(std::string_view message) {
  std::vector<std::string_view> lines = lines_of(message);
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  std::size_t start = lines.size();
  while (start > 0 && !blank(lines[start - 1])) --start;
  // The summary's paragraph is never the trailer block.
  bool earlier = false;
  for (std::size_t i = 0; i < start; ++i) earlier = earlier || !blank(lines[i]);
  Trailers out;
  if (!earlier || start == lines.size()) return out;
  for (std::size_t i = start; i < lines.size(); ++i) {
    std::string_view key, value;
    if (!trailer_line(lines[i], &key, &value)) return {};
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.remove_suffix(1);
    out.emplace_back(std::string(key), std::string(value));
  }
  return out;
}

}  // namespace editgit
