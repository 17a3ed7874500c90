// The dashboard's door, without Beast: what GET /, its script and style,
// and the upgrade to /v1/dashboard answer. http_connection sends it.
#pragma once

#include "services/error.hpp"
#include "services/http_responder.hpp"
#include "services/target.hpp"

#include <string>
#include <string_view>

namespace services {
class Gateway;
}

namespace dashboard {

struct DashboardAnswer {
  unsigned status = 200;
  std::string_view type;
  std::string body;
  services::HttpHeaders headers;
};

// GET / (with ?token=<one-time token>: signs the browser in and sends it to
// / without the token), /dashboard.js, /dashboard.css. nullopt: not one of
// the dashboard's paths.
std::optional<DashboardAnswer> dashboard_get(const services::Target& target, std::string_view cookie_header, services::Gateway& gw);

// Whether an upgrade to /v1/dashboard may become the dashboard's socket:
// the gateway's own Origin (a page elsewhere never reads the dashboard's
// data) and a signed-in cookie.
services::Result<bool> dashboard_socket_allowed(std::string_view origin, std::string_view cookie_header, services::Gateway& gw);

}  // namespace dashboard
