// The dashboard's door, without Beast: what GET /, its script and style,
// and the upgrade to /v1/dashboard answer. http_connection sends it.
#pragma once

#include "services/dashboard_auth.hpp"
#include "services/error.hpp"
#include "services/http_responder.hpp"
#include "services/target.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace services {
class Gateway;
}

namespace dashboard {

// Every Cookie header of the request, in order.
using CookieHeaders = std::vector<std::string_view>;

struct DashboardAnswer {
  unsigned status = 200;
  std::string_view type;
  std::string body;
  services::HttpHeaders headers;
};

// GET / (with ?token=<one-time token>: signs the browser in and sends it to
// / without the token), /dashboard.js, /dashboard.css. nullopt: not one of
// the dashboard's paths.
std::optional<DashboardAnswer> dashboard_get(const services::Target& target, const CookieHeaders& cookies, services::Gateway& gw);

// Whether an upgrade to /v1/dashboard may become the dashboard's socket:
// the gateway's own Origin (a page elsewhere never reads the dashboard's
// data) and a signed-in cookie; the session's grade (a person's may decide).
services::Result<services::Grade> dashboard_socket_allowed(std::string_view origin, const CookieHeaders& cookies, services::Gateway& gw);

// Where the signed-in dashboard fetches a screenshot of a page.
inline constexpr std::string_view screenshot_route = "/v1/dashboard/screenshot";

// GET screenshot_route?path=debug/<page>.screenshots/<n>.png: the PNG
// (services/screenshot_read.hpp), for a signed-in cookie only, read on the
// worker thread and answered on `http`; else a named error there:
// unauthorized, missing_param, bad_request, path_refused, not_found,
// file_too_large, conflict, too_many_requests (16 being read), shutting_down.
void send_screenshot(const services::Target& target, const CookieHeaders& cookies, services::Gateway& gw,
                     std::shared_ptr<services::HttpResponder> http);

}  // namespace dashboard
