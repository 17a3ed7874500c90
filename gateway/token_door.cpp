#include "gateway/token_door.hpp"

#include "services/error.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json.hpp>

#include <array>

namespace gateway {

namespace json = boost::json;

namespace {

// Whether every client is this machine's: the gateway listens on loopback.
bool local_only(const services::Binding& binding) {
  boost::system::error_code ec;
  const auto ip = boost::asio::ip::make_address(binding.address, ec);
  return !ec && ip.is_loopback();
}

// Where the token is and what needs none. No word of it may read as an
// authorization failure to a client that classifies error text (mcporter
// restarts OAuth on "unauthorized", "forbidden", "401"). The file's path
// names the user's home and project: it is said to this machine's clients
// only, not to a network a non-loopback --bind opens the door to.
std::string where_the_token_is(const services::Gateway& gw) {
  const std::string file = local_only(gw.binding())
                               ? gw.cookie_file() + " (`editgate where` names that file)"
                               : "the gateway's cookie file (on its machine, `editgate where` names it and "
                                 "`editgate mcp token` prints it)";
  return "send 'Authorization: Bearer <token>', the token being the content of " + file +
         "; or let the client start `editgate mcp`, the stdio bridge, which needs no token";
}

std::string serialized(const json::object& body) { return json::serialize(body) + "\n"; }

// The paths OAuth clients probe (RFC 9728, RFC 8414, OpenID discovery: each
// also with the resource's path appended) and the default endpoints that the
// 2025-03-26 revision lets a client assume when no metadata is found.
bool discovery_path(std::string_view path) {
  constexpr std::array<std::string_view, 3> prefixes{"/.well-known/oauth-protected-resource",
                                                     "/.well-known/oauth-authorization-server",
                                                     "/.well-known/openid-configuration"};
  for (std::string_view p : prefixes)
    if (path == p || (path.starts_with(p) && path[p.size()] == '/')) return true;
  return false;
}

}  // namespace

DoorAnswer token_refused(const services::Gateway& gw, bool sent) {
  json::object body;
  services::mark_http_error(body, services::Failure{services::Error::unauthorized,
                                                    (sent ? "wrong token: " : "no token: ") + where_the_token_is(gw)});
  // A Bearer challenge (RFC 6750) without resource_metadata: it announces no
  // OAuth authorization server, as MCP's authorization would.
  std::string challenge = sent ? "Bearer realm=\"editgate\", error=\"invalid_token\"" : "Bearer realm=\"editgate\"";
  return {401, serialized(body), {{"WWW-Authenticate", std::move(challenge)}}};
}

std::optional<DoorAnswer> oauth_door(std::string_view path, const services::Gateway& gw) {
  const std::string words = "editgate uses no OAuth: " + where_the_token_is(gw);
  if (discovery_path(path)) {
    // Not found, so a client's discovery goes on to its fallbacks (a 5xx would end it with no words of ours).
    json::object body;
    services::mark_http_error(body, services::Failure{services::Error::not_found, words});
    return DoorAnswer{404, serialized(body), {}};
  }
  if (path == "/register" || path == "/token" || path == "/authorize") {
    // An OAuth error (RFC 6749 5.2, RFC 7591 3.2.2): SDK clients print its
    // error_description, and access_denied is not a code they retry on.
    json::object body{{"error", "access_denied"}, {"error_description", words}};
    return DoorAnswer{400, serialized(body), {}};
  }
  return std::nullopt;
}

}  // namespace gateway
