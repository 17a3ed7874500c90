// What a client without the agents' token is told: the 401 of every route that
// needs it, and the answers at the OAuth paths that OAuth-first clients probe
// after a 401. editgate's token is a static bearer token (the cookie), not
// OAuth: the challenge names no resource metadata, and the one answer of an
// OAuth flow such clients print (the client registration's error) carries the
// same words as the 401 (docs/decisions/token-door.md).
#pragma once

#include "services/gateway.hpp"
#include "services/http_responder.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gateway {

struct DoorAnswer {
  unsigned status = 0;
  std::string body;  // a JSON text
  services::HttpHeaders headers;
};

// The 401 of a request that sent no bearer token (`sent` false) or a wrong one.
DoorAnswer token_refused(const services::Gateway& gw, bool sent);

// The answer at an OAuth discovery or registration path, whatever the method;
// nullopt for every other path.
std::optional<DoorAnswer> oauth_door(std::string_view path, const services::Gateway& gw);

}  // namespace gateway
