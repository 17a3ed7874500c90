#include "services/origin_approvals.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace services {

namespace json = boost::json;

std::string site_of(std::string_view origin) {
  std::string_view host = origin.substr(std::min(origin.find("://"), origin.size()));
  if (host.starts_with("://")) host.remove_prefix(3);
  if (host.starts_with("[")) return std::string(host.substr(0, host.find(']') + 1));  // IPv6
  host = host.substr(0, host.find(':'));
  if (host.ends_with('.')) host.remove_suffix(1);  // "example.com." is example.com
  const bool ipv4 = !host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos;
  const std::size_t last = host.rfind('.');
  if (ipv4 || last == std::string_view::npos || last == 0) return std::string(host);
  const std::size_t before = host.rfind('.', last - 1);
  return std::string(before == std::string_view::npos ? host : host.substr(before + 1));
}

void OriginApprovals::forget_stale(std::chrono::steady_clock::time_point now) {
  std::erase_if(origins_, [&](const auto& kv) {
    return kv.second.state == State::pending && now - kv.second.last_asked > pending_life;
  });
}

OriginApprovals::Verdict OriginApprovals::ask(const std::string& origin) {
  bool added = false;
  Verdict verdict = Verdict::pending;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    forget_stale(now);
    auto it = origins_.find(origin);
    if (it == origins_.end()) {
      const std::string site = site_of(origin);
      std::size_t pending = 0, of_site = 0;
      for (const auto& [o, e] : origins_) {
        if (e.state != State::pending) continue;
        ++pending;
        of_site += site_of(o) == site;
      }
      // A flood of made-up origins fills the list, then is refused: what the
      // person already sees stays put. One site's flood (subdomains in
      // iframes) stops at its share, leaving room for other sites.
      if (pending >= max_pending) return Verdict::full;
      if (of_site >= max_pending_per_site) return Verdict::site_full;
      it = origins_.emplace(origin, Entry{State::pending, std::chrono::system_clock::now(), now, 0}).first;
      added = true;
    }
    Entry& e = it->second;
    e.last_asked = now;
    ++e.attempts;
    verdict = e.state == State::allowed ? Verdict::allowed : e.state == State::refused ? Verdict::refused : Verdict::pending;
  }
  if (added && changed_) changed_();
  return verdict;
}

void OriginApprovals::decide(const std::string& origin, bool allow) {
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    auto it = origins_.try_emplace(origin, Entry{State::pending, std::chrono::system_clock::now(), now, 0}).first;
    it->second.state = allow ? State::allowed : State::refused;
  }
  if (changed_) changed_();
}

json::object OriginApprovals::snapshot() {
  json::array pending, allowed, refused;
  std::lock_guard lock(mutex_);
  forget_stale(std::chrono::steady_clock::now());
  for (const auto& [origin, e] : origins_) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(e.first_seen.time_since_epoch()).count();
    json::object o{{"origin", origin}, {"first_seen_ms", ms}, {"attempts", e.attempts}};
    (e.state == State::pending ? pending : e.state == State::allowed ? allowed : refused).emplace_back(std::move(o));
  }
  return {{"pending", std::move(pending)}, {"allowed", std::move(allowed)}, {"refused", std::move(refused)}};
}

}  // namespace services
