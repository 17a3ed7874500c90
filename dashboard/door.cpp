#include "dashboard/door.hpp"

#include "dashboard/assets.hpp"
#include "services/gateway.hpp"
#include "services/screenshot_read.hpp"
#include "services/security.hpp"

#include <boost/json.hpp>

#include <atomic>

namespace dashboard {

namespace {

// The page a browser gets when it is not signed in: what to do about it.
DashboardAnswer sign_in_page(unsigned status, std::string_view why) {
  std::string body =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>editgate: sign in</title></head><body>"
      "<h1>editgate</h1><p>" +
      std::string(why) +
      "</p><p>Open the dashboard URL that <code>editgate serve</code> printed in its terminal (it may approve pages), "
      "or run <code>editgate dashboard</code> in the workspace for one that can look but not approve. Each URL signs "
      "in one browser, once.</p></body></html>\n";
  return {status, "text/html; charset=utf-8", std::move(body),
          {{"Content-Security-Policy", std::string(dashboard_csp)}, {"Referrer-Policy", "no-referrer"}}};
}

std::optional<services::Grade> signed_in(const CookieHeaders& cookies, services::Gateway& gw) {
  return gw.dashboard().signed_in(services::cookie_values(cookies, services::dashboard_cookie_name(gw.binding().port)));
}

// Screenshots being read or answered, over every dashboard: each holds up
// to 8 MiB, and the worker that reads them runs the agents' edits and evals
// too. A browser asks a host for 6 at a time; a client that asks for more
// is refused past this (too_many_requests) rather than queued.
constexpr int max_screenshot_reads = 16;
std::atomic<int> screenshot_reads{0};

// One of them, until the answer is handed to the connection (or the work
// is dropped at stop).
struct ReadSlot {
  ReadSlot() = default;
  ReadSlot(const ReadSlot&) = delete;
  ReadSlot& operator=(const ReadSlot&) = delete;
  ~ReadSlot() { --screenshot_reads; }
};

void send_error(services::HttpResponder& http, const services::Failure& failure) {
  boost::json::object body;
  services::mark_http_error(body, failure);
  http.respond(services::http_status(failure.code), "application/json", boost::json::serialize(body) + "\n");
}

}  // namespace

std::optional<DashboardAnswer> dashboard_get(const services::Target& target, const CookieHeaders& cookies, services::Gateway& gw) {
  auto asset = dashboard_asset(target.path);
  if (!asset) return std::nullopt;
  const services::HttpHeaders headers{{"Content-Security-Policy", std::string(dashboard_csp)},
                            {"Referrer-Policy", "no-referrer"},
                            {"X-Frame-Options", "DENY"}};
  if (target.path != "/") return DashboardAnswer{200, asset->type, std::string(asset->body), headers};
  for (const auto& [name, value] : target.params) {
    if (name != "token") continue;
    auto session = gw.dashboard().redeem(value);
    if (!session) return sign_in_page(401, "This sign-in URL was used already, or is not this gateway's.");
    // The token leaves the address bar (and the history) at once; the
    // cookie is the browser's alone: no script reads it, no other site
    // sends it.
    return DashboardAnswer{303, "text/plain; charset=utf-8", "signed in\n",
                           {{"Location", "/"},
                            {"Set-Cookie", services::dashboard_cookie_name(gw.binding().port) + "=" + *session +
                                               "; HttpOnly; SameSite=Strict; Path=/"},
                            {"Referrer-Policy", "no-referrer"}}};
  }
  if (!signed_in(cookies, gw)) return sign_in_page(401, "This browser is not signed in to this gateway.");
  return DashboardAnswer{200, asset->type, std::string(asset->body), headers};
}

services::Result<services::Grade> dashboard_socket_allowed(std::string_view origin, const CookieHeaders& cookies, services::Gateway& gw) {
  if (origin.empty() || !own_origin(origin, gw.binding()))
    return services::Failure{services::Error::forbidden_origin, "the dashboard's socket is for the dashboard's own page"};
  auto grade = signed_in(cookies, gw);
  if (!grade) return services::Failure{services::Error::unauthorized, "not signed in: open the URL `editgate serve` printed"};
  return *grade;
}

void send_screenshot(const services::Target& target, const CookieHeaders& cookies, services::Gateway& gw,
                     std::shared_ptr<services::HttpResponder> http) {
  if (!signed_in(cookies, gw))
    return send_error(*http, {services::Error::unauthorized, "not signed in: open the URL `editgate serve` printed"});
  const std::string* path = nullptr;
  for (const auto& [name, value] : target.params) {
    if (name != "path" || path)
      return send_error(*http, {services::Error::bad_request, "the screenshot route takes one parameter, path"});
    path = &value;
  }
  if (!path) return send_error(*http, {services::Error::missing_param, "path: debug/<page>.screenshots/<n>.png"});
  if (gw.stopping()) return send_error(*http, {services::Error::shutting_down, "the gateway is stopping"});
  if (++screenshot_reads > max_screenshot_reads) {
    --screenshot_reads;
    return send_error(*http, {services::Error::too_many_requests,
                              std::to_string(max_screenshot_reads) + " screenshots are being read; ask again"});
  }
  auto slot = std::make_shared<ReadSlot>();
  services::Worker& worker = gw.worker();
  worker.run(
      http->executor(), [&worker, path = *path] { return services::read_screenshot(worker.workspace(), path); },
      [http, slot](services::Result<std::string> png) {
        if (!png) return send_error(*http, png.error());
        // Its own page if opened alone: nothing in it runs, no other site embeds it.
        http->respond(200, "image/png", std::move(*png),
                      {{"Content-Security-Policy", "default-src 'none'; sandbox"},
                       {"Cross-Origin-Resource-Policy", "same-origin"},
                       {"Referrer-Policy", "no-referrer"}});
      });
}

}  // namespace dashboard
