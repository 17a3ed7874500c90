#include "git/redact.hpp"

#include <cctype>

namespace editgit {

namespace {

// Where a URL's authority ends (RFC 3986): its path, query or fragment, or
// the end of the URL within a text (white space, quotes, brackets).
bool ends_authority(char c) {
  return c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' ||
         std::isspace(static_cast<unsigned char>(c));
}

// Whether text[0, at) ends in a URL scheme ("https" before "://").
bool scheme_before(std::string_view text, std::size_t at) {
  std::size_t b = at;
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '+' ||
                   text[b - 1] == '-' || text[b - 1] == '.'))
    --b;
  return b < at && std::isalpha(static_cast<unsigned char>(text[b]));
}

struct Authority {
  std::size_t begin = 0, end = 0;  // after "://", up to the path
  std::size_t at = std::string_view::npos;  // its last '@': the userinfo ends there
};

Authority authority(std::string_view text, std::size_t begin) {
  Authority a{begin, begin};
  while (a.end < text.size() && !ends_authority(text[a.end])) {
    if (text[a.end] == '@') a.at = a.end;
    ++a.end;
  }
  return a;
}

}  // namespace

std::string redact_urls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;
  for (std::size_t sep = text.find("://"); sep != std::string_view::npos; sep = text.find("://", sep + 3)) {
    if (!scheme_before(text, sep)) continue;
    const Authority a = authority(text, sep + 3);
    if (a.at == std::string_view::npos) continue;
    out.append(text.substr(done, a.begin - done));
    done = a.at + 1;
  }
  out.append(text.substr(done));
  return out;
}

bool carries_credentials(std::string_view remote) {
  const std::size_t sep = remote.find("://");
  if (sep == std::string_view::npos || !scheme_before(remote, sep)) return false;
  const Authority a = authority(remote, sep + 3);
  if (a.at == std::string_view::npos) return false;
  const std::string_view userinfo = remote.substr(a.begin, a.at - a.begin);
  std::string scheme(remote.substr(0, sep));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return userinfo.find(':') != std::string_view::npos || scheme == "http" || scheme == "https";
}

}  // namespace editgit
