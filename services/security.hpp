// The checks every request passes before it reaches an op. Pure
// functions of header values, so they are tested without a socket.
#pragma once

#include "repl/secrets.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace services {

// Where the gateway listens, and which browser origins may talk to it
// besides its own.
struct Binding {
  std::string address = "127.0.0.1";
  unsigned short port = 0;
  std::vector<std::string> allowed_origins;  // "http://host:port", lower case, no trailing slash
};

// The cookie is compared in constant time (repl/secrets.hpp).
using repl::constant_time_equal;

// The token of "Bearer <token>"; nullopt for any other scheme.
std::optional<std::string_view> bearer_token(std::string_view authorization);

// Host names this gateway: a loopback name (localhost, 127.0.0.1, [::1]) or
// the bound address, with the bound port. Anything else is a page whose DNS
// name was rebound to 127.0.0.1.
bool host_allowed(std::string_view host, const Binding& b);

// A browser's Origin is the gateway's own (a loopback name with its port)
// or one allowed with --allow-origin.
bool origin_allowed(std::string_view origin, const Binding& b);

// The gateway's own origin only: a loopback name or the bound address,
// with its port (the dashboard's page, never an --allow-origin one).
bool own_origin(std::string_view origin, const Binding& b);

// The page door's allow-list: any loopback origin (http or https, any
// port), or one allowed with --allow-origin. A missing Origin fails.
bool page_origin_allowed(std::string_view origin, const Binding& b);

// An --allow-origin value as it will be compared: scheme://host[:port],
// lower case. nullopt when it is not of that shape.
std::optional<std::string> normalize_origin(std::string_view origin);
// An http or https URL's origin (scheme://host[:port], user info left
// out); nullopt for any other URL (file:, data:, javascript:, about:).
std::optional<std::string> url_origin(std::string_view url);

// An origin a person typed, as browsers send them: exactly
// http(s)://host[:port] (a DNS name of letters, digits, '-' and '.', an
// IPv4 or a bracketed IPv6 literal), nothing after; lower case. nullopt
// for anything else (a path, a slash, a user, a query, another scheme).
std::optional<std::string> typed_origin(std::string_view origin);

using repl::random_hex;

}  // namespace services
