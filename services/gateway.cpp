#include "services/gateway.hpp"

#include "editproto/unicode.hpp"

namespace services {

Gateway::Gateway(Binding binding, std::string cookie, Worker& worker, ServeLimits limits, std::string workspace_id)
    : binding_(std::move(binding)), cookie_(std::move(cookie)), worker_(worker), sessions_(limits.sessions), limits_(limits),
      workspace_id_(std::move(workspace_id)), nonce_(random_hex(16)), started_(std::chrono::steady_clock::now()) {}

bool Gateway::enter() {
  std::size_t n = connections_.load();
  while (n < limits_.connections)
    if (connections_.compare_exchange_weak(n, n + 1)) return true;
  return false;
}

void Gateway::leave() { connections_.fetch_sub(1); }

bool Gateway::enter_page(const std::string& origin) {
  {
    std::lock_guard lock(pages_mutex_);
    auto it = page_origins_.find(origin);
    const std::size_t here = it == page_origins_.end() ? 0 : it->second;
    if (page_sockets_ >= limits_.page_sockets || here >= limits_.page_sockets_per_origin) return false;
    ++page_sockets_;
    ++page_origins_[origin];
  }
  leave();
  return true;
}

void Gateway::leave_page(const std::string& origin) {
  std::lock_guard lock(pages_mutex_);
  --page_sockets_;
  if (auto it = page_origins_.find(origin); it != page_origins_.end() && --it->second == 0) page_origins_.erase(it);
}

void Gateway::join(std::weak_ptr<Stoppable> connection) {
  std::lock_guard lock(mutex_);
  // Drop the entries of connections already gone, so the list stays short.
  std::erase_if(live_, [](const std::weak_ptr<Stoppable>& s) { return s.expired(); });
  live_.push_back(std::move(connection));
}

void Gateway::request_stop() {
  if (stopping_.exchange(true)) return;
  if (on_stop_) on_stop_();
}

void Gateway::stop_connections() {
  std::vector<std::weak_ptr<Stoppable>> copy;
  {
    std::lock_guard lock(mutex_);
    copy = live_;
  }
  // Outside the lock: a connection's stop() may end it, and its end may join.
  for (auto& weak : copy)
    if (auto s = weak.lock()) s->stop();
}

std::optional<Failure> page_origin_refused(Gateway& gw, std::string_view origin, std::string_view workspace) {
  if (page_origin_allowed(origin, gw.binding())) return std::nullopt;
  if (!workspace.empty() && workspace != gw.workspace_id()) return std::nullopt;
  const std::string shown = editproto::unicode::to_valid_utf8(origin);
  auto normal = normalize_origin(origin);
  if (!normal) return Failure{Error::forbidden_origin, "Origin '" + shown + "' is not scheme://host[:port]; pages cannot connect from it"};
  switch (gw.approvals().ask(*normal)) {
    case OriginApprovals::Verdict::allowed: return std::nullopt;
    case OriginApprovals::Verdict::refused:
      return Failure{Error::forbidden_origin, "Origin '" + shown + "' was refused on the dashboard"};
    case OriginApprovals::Verdict::full:
      return Failure{Error::forbidden_origin, "Origin '" + shown + "' may not connect pages: " +
                                                  std::to_string(OriginApprovals::max_pending) +
                                                  " origins wait for approval already; type it on the dashboard's "
                                                  "Approvals, or start the gateway with --allow-origin " + shown};
    case OriginApprovals::Verdict::site_full:
      return Failure{Error::forbidden_origin, "Origin '" + shown + "' may not connect pages: " +
                                                  std::to_string(OriginApprovals::max_pending_per_site) +
                                                  " origins of its site (" + site_of(*normal) +
                                                  ") wait for approval already; type it on the dashboard's "
                                                  "Approvals, or start the gateway with --allow-origin " + shown};
    case OriginApprovals::Verdict::pending: break;
  }
  return Failure{Error::origin_pending, "Origin '" + shown + "' waits for approval on the dashboard (" + gw.url() +
                                            "), or start the gateway with --allow-origin " + shown};
}

}  // namespace services
