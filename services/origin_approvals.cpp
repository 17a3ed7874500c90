#include "services/origin_approvals.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace services {

namespace json = boost::json;

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
      const auto pending = std::count_if(origins_.begin(), origins_.end(),
                                         [](const auto& kv) { return kv.second.state == State::pending; });
      // A flood of made-up origins fills the list, then is refused: what the
      // person already sees stays put.
      if (static_cast<std::size_t>(pending) >= max_pending) return Verdict::full;
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

Result<bool> OriginApprovals::decide(const std::string& origin, bool allow) {
  {
    std::lock_guard lock(mutex_);
    auto it = origins_.find(origin);
    if (it == origins_.end())
      return Failure{Error::not_found, "no page from " + origin + " has asked to connect"};
    it->second.state = allow ? State::allowed : State::refused;
  }
  if (changed_) changed_();
  return allow;
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
