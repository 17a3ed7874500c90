#include "services/security.hpp"


#include <algorithm>
#include <cctype>

namespace services {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool loopback_name(std::string_view host) { return host == "localhost" || host == "127.0.0.1" || host == "[::1]"; }

// "host[:port]" -> (host, port); port 0 when absent, nullopt when malformed.
std::optional<std::pair<std::string, unsigned>> split_host(std::string_view hp) {
  std::string_view host = hp, port;
  if (!hp.empty() && hp.front() == '[') {
    std::size_t close = hp.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = hp.substr(0, close + 1);
    std::string_view rest = hp.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (std::size_t colon = hp.rfind(':'); colon != std::string_view::npos) {
    host = hp.substr(0, colon);
    port = hp.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  unsigned p = 0;
  if (!port.empty()) {
    if (port.size() > 5) return std::nullopt;
    for (char c : port) {
      if (c < '0' || c > '9') return std::nullopt;
      p = p * 10 + static_cast<unsigned>(c - '0');
    }
    if (p == 0 || p > 65535) return std::nullopt;
  }
  return std::pair{lower(host), p};
}

std::string bracketed(const std::string& address) {
  return address.find(':') != std::string::npos ? "[" + address + "]" : address;
}

}  // namespace

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer ";
  if (authorization.size() <= scheme.size()) return std::nullopt;
  if (lower(authorization.substr(0, scheme.size())) != scheme) return std::nullopt;
  std::string_view token = authorization.substr(scheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

bool host_allowed(std::string_view host, const Binding& b) {
  auto hp = split_host(host);
  if (!hp) return false;
  const auto& [name, port] = *hp;
  if (port != b.port && !(port == 0 && b.port == 80)) return false;
  return loopback_name(name) || name == lower(bracketed(b.address));
}

std::optional<std::string> normalize_origin(std::string_view origin) {
  std::string o = lower(origin);
  while (!o.empty() && o.back() == '/') o.pop_back();
  std::size_t sep = o.find("://");
  if (sep == std::string::npos || sep == 0) return std::nullopt;
  for (char c : o.substr(0, sep))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return std::nullopt;
  std::string_view rest = std::string_view(o).substr(sep + 3);
  if (rest.find('/') != std::string_view::npos || !split_host(rest)) return std::nullopt;
  return o;
}

std::optional<std::string> typed_origin(std::string_view origin) {
  std::string o = lower(origin);
  std::string_view rest = o;
  if (rest.starts_with("http://")) rest.remove_prefix(7);
  else if (rest.starts_with("https://")) rest.remove_prefix(8);
  else return std::nullopt;
  auto hp = split_host(rest);
  if (!hp) return std::nullopt;
  const std::string& host = hp->first;
  const bool v6 = host.front() == '[';
  const std::string_view name = v6 ? std::string_view(host).substr(1, host.size() - 2) : std::string_view(host);
  const std::string_view allowed = v6 ? "0123456789abcdef:." : "abcdefghijklmnopqrstuvwxyz0123456789-.";
  if (name.empty() || name.find_first_not_of(allowed) != std::string_view::npos) return std::nullopt;
  if (!v6 && (name.front() == '.' || name.front() == '-' || name.find("..") != std::string_view::npos)) return std::nullopt;
  return o;
}

bool origin_allowed(std::string_view origin, const Binding& b) {
  auto o = normalize_origin(origin);
  if (!o) return false;
  for (const std::string& allowed : b.allowed_origins)
    if (*o == allowed) return true;
  return own_origin(*o, b);
}

bool own_origin(std::string_view origin, const Binding& b) {
  auto o = normalize_origin(origin);
  if (!o) return false;
  constexpr std::string_view http = "http://";
  if (o->compare(0, http.size(), http) != 0) return false;
  auto hp = split_host(std::string_view(*o).substr(http.size()));
  if (!hp || hp->second != b.port) return false;
  return loopback_name(hp->first) || hp->first == lower(bracketed(b.address));
}

bool page_origin_allowed(std::string_view origin, const Binding& b) {
  auto o = normalize_origin(origin);
  if (!o) return false;
  for (const std::string& allowed : b.allowed_origins)
    if (*o == allowed) return true;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (o->compare(0, scheme.size(), scheme) != 0) continue;
    std::string_view rest = std::string_view(*o).substr(scheme.size());
    // Any port: the pages a developer serves locally (a dev server on :3000).
    auto hp = split_host(rest);
    return hp && loopback_name(hp->first);
  }
  return false;
}

std::optional<std::string> url_origin(std::string_view url) {
  std::string_view scheme;
  for (std::string_view s : {"http://", "https://"})
    if (url.size() > s.size() && std::equal(s.begin(), s.end(), url.begin(), [](char a, char b) {
          return a == (b >= 'A' && b <= 'Z' ? b + 32 : b);
        }))
      scheme = s;
  if (scheme.empty()) return std::nullopt;
  std::string_view authority = url.substr(scheme.size());
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return std::nullopt;
  for (char c : authority)
    if (static_cast<unsigned char>(c) <= ' ') return std::nullopt;
  return std::string(scheme) + std::string(authority);
}

}  // namespace services
