// Who may open the dashboard: the person who started `editgate serve`, by
// the one-time token in the URL it prints (as Jupyter does), then by a
// session cookie the browser keeps (HttpOnly, SameSite=Strict) so that the
// token leaves the address bar and the history at once. A token has a
// grade, and so has the session it becomes: the URL serve prints on its
// terminal is the person's (it may approve origins); one minted through the
// API (`editgate dashboard`, POST /v1/dashboard-url) is a viewer's, since
// any agent holding the bearer cookie can mint it. The network thread's
// state (serve mints the first token on that thread before it runs the
// io_context; the dashboard's door and ops use it there): no lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace services {

// The dashboard's cookie, named for the gateway's port: cookies do not
// separate ports, and gateways of several projects share 127.0.0.1, so one
// name would let signing in to one sign the browser out of the others.
inline std::string dashboard_cookie_name(unsigned short port) {
  return "editgate_dashboard_" + std::to_string(port);
}

// What a dashboard session may do: look (viewer), or look and decide
// (person). Ordered: the higher grade wins among a browser's cookies.
enum class Grade { viewer, person };

class DashboardAuth {
 public:
  // Tokens not used yet: the newest `max_tokens`; older ones stop working.
  static constexpr std::size_t max_tokens = 16;
  // Browsers signed in: the newest `max_sessions`.
  static constexpr std::size_t max_sessions = 32;
  static constexpr std::chrono::hours session_life{24};

  // A new token (32 hex digits) of `grade`, good for one sign-in.
  std::string mint_token(Grade grade);
  // The token's session id (32 hex digits) to set as the cookie, and the
  // token spent; nullopt for a token that is not one (or was used).
  std::optional<std::string> redeem(std::string_view token);
  // The grade of a cookie's value when it is a live session.
  std::optional<Grade> signed_in(std::string_view session);
  // The highest grade among `values` (every value a browser sent under the
  // cookie's name: another site on a loopback origin may toss in its own).
  std::optional<Grade> signed_in(const std::vector<std::string_view>& values);

 private:
  struct Token {
    std::string value;
    Grade grade;
  };
  struct SignIn {
    std::string id;
    Grade grade;
    std::chrono::steady_clock::time_point since;
  };
  std::deque<Token> tokens_;
  std::deque<SignIn> sessions_;
};

// Every value of cookie `name` in Cookie headers ("a=1; b=2"), in order:
// a browser sends one per matching path and domain, most specific first,
// and none of them is more the person's than another.
std::vector<std::string_view> cookie_values(const std::vector<std::string_view>& headers, std::string_view name);

}  // namespace services
