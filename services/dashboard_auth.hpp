// Who may open the dashboard: the person who started `editgate serve`, by
// the one-time token in the URL it prints (as Jupyter does), then by a
// session cookie the browser keeps (HttpOnly, SameSite=Strict) so that the
// token leaves the address bar and the history at once. The network
// thread's state (serve mints the first token on that thread before it runs
// the io_context; the dashboard's door and ops use it there): no lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace services {

inline constexpr std::string_view dashboard_cookie_name = "editgate_dashboard";

class DashboardAuth {
 public:
  // Tokens not used yet: the newest `max_tokens`; older ones stop working.
  static constexpr std::size_t max_tokens = 16;
  // Browsers signed in: the newest `max_sessions`.
  static constexpr std::size_t max_sessions = 32;
  static constexpr std::chrono::hours session_life{24};

  // A new token (32 hex digits), good for one sign-in.
  std::string mint_token();
  // The token's session id (32 hex digits) to set as the cookie, and the
  // token spent; nullopt for a token that is not one (or was used).
  std::optional<std::string> redeem(std::string_view token);
  // Whether a cookie's value is a live session.
  bool signed_in(std::string_view session);

 private:
  struct SignIn {
    std::string id;
    std::chrono::steady_clock::time_point since;
  };
  std::deque<std::string> tokens_;
  std::deque<SignIn> sessions_;
};

// The value of cookie `name` in a Cookie header ("a=1; b=2"); nullopt when
// it is not there.
std::optional<std::string_view> cookie_value(std::string_view header, std::string_view name);

}  // namespace services
