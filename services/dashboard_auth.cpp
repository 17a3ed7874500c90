#include "services/dashboard_auth.hpp"

#include "services/security.hpp"

#include <algorithm>

namespace services {

namespace {

// Past `max`, the oldest viewer's entry goes, never the person's: sign-ins
// anyone with the cookie can mint must not push out the one serve printed.
template <class List>
void bound(List& list, std::size_t max) {
  if (list.size() <= max) return;
  auto oldest = std::find_if(list.begin(), list.end(), [](const auto& e) { return e.grade != Grade::person; });
  list.erase(oldest != list.end() ? oldest : list.begin());
}

}  // namespace

std::string DashboardAuth::mint_token(Grade grade) {
  std::string token = random_hex(32);
  tokens_.push_back({token, grade});
  bound(tokens_, max_tokens);
  return token;
}

std::optional<std::string> DashboardAuth::redeem(std::string_view token) {
  // Every token is compared, in constant time, so the time taken tells
  // nothing of which one was near.
  auto found = tokens_.end();
  for (auto it = tokens_.begin(); it != tokens_.end(); ++it)
    if (constant_time_equal(token, it->value)) found = it;
  if (found == tokens_.end()) return std::nullopt;
  const Grade grade = found->grade;
  tokens_.erase(found);
  SignIn s{random_hex(32), grade, std::chrono::steady_clock::now()};
  sessions_.push_back(s);
  bound(sessions_, max_sessions);
  return s.id;
}

std::optional<Grade> DashboardAuth::signed_in(std::string_view session) {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(sessions_, [&](const SignIn& s) { return now - s.since > session_life; });
  std::optional<Grade> found;
  for (const SignIn& s : sessions_)
    if (constant_time_equal(session, s.id)) found = s.grade;
  return found;
}

std::optional<Grade> DashboardAuth::signed_in(const std::vector<std::string_view>& values) {
  std::optional<Grade> best;
  for (std::string_view v : values)
    if (auto g = signed_in(v); g && (!best || *g > *best)) best = g;
  return best;
}

std::vector<std::string_view> cookie_values(const std::vector<std::string_view>& headers, std::string_view name) {
  std::vector<std::string_view> values;
  for (std::string_view header : headers) {
    while (!header.empty()) {
      const std::size_t end = std::min(header.find(';'), header.size());
      std::string_view pair = header.substr(0, end);
      header.remove_prefix(std::min(end + 1, header.size()));
      while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
      while (!pair.empty() && (pair.back() == ' ' || pair.back() == '\t')) pair.remove_suffix(1);
      const std::size_t eq = pair.find('=');
      if (eq != std::string_view::npos && pair.substr(0, eq) == name) values.push_back(pair.substr(eq + 1));
    }
  }
  return values;
}

}  // namespace services
