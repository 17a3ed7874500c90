#include "services/session_table.hpp"

namespace services {

SessionTable::SessionTable(SessionLimits limits) : limits_(limits) {}

// The session nobody has held longest, that owns no realm (a realm's
// session ends with its realm, by close or by expiry), gives its place.
bool SessionTable::make_room() {
  auto oldest = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    const Session& s = it->second;
    if (s.holder || !s.view.realm.empty()) continue;
    if (oldest == sessions_.end() || s.released < oldest->second.released) oldest = it;
  }
  if (oldest == sessions_.end()) return false;
  sessions_.erase(oldest);
  return true;
}

Result<void> SessionTable::start(const std::string& id, Holder holder, std::string page, std::string realm) {
  if (sessions_.count(id)) return Failure{Error::conflict, "session " + id + " exists already"};
  if (sessions_.size() >= limits_.max_sessions && !make_room())
    return Failure{Error::too_many_sessions, "there are " + std::to_string(sessions_.size()) +
                                                 " sessions, the most this gateway keeps; close some (op close)"};
  Session s;
  s.view.id = id;
  s.view.page = std::move(page);
  s.view.realm = std::move(realm);
  s.view.created = s.view.last_active = std::chrono::system_clock::now();
  s.view.held = true;
  s.holder = holder;
  sessions_.emplace(id, std::move(s));
  return {};
}

Result<SessionTable::Session*> SessionTable::held_by(const std::string& id, Holder holder) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return Failure{Error::not_found, "no session " + id};
  Session& s = it->second;
  if (s.holder && s.holder != holder)
    return Failure{Error::in_use, "session " + id + " belongs to another connection"};
  s.holder = holder;
  s.view.held = true;
  s.view.last_active = std::chrono::system_clock::now();
  return &s;
}

Result<SessionView> SessionTable::resume(const std::string& id, Holder holder, Context& context) {
  auto s = held_by(id, holder);
  if (!s) return s.error();
  context = (*s)->context;
  return (*s)->view;
}

Result<std::optional<SessionView>> SessionTable::touch(const std::string& id, Holder holder, std::string_view agent) {
  if (!sessions_.count(id)) return std::optional<SessionView>();
  auto s = held_by(id, holder);
  if (!s) return s.error();
  if (!agent.empty()) (*s)->view.agent = agent;
  return std::optional<SessionView>((*s)->view);
}

Result<void> SessionTable::bind(const std::string& id, Holder holder, const std::string& page) {
  auto s = held_by(id, holder);
  if (!s) return s.error();
  (*s)->view.page = page;
  return {};
}

Result<std::string> SessionTable::close(const std::string& id, Holder holder) {
  auto s = held_by(id, holder);
  if (!s) return s.error();
  std::string realm = std::move((*s)->view.realm);
  sessions_.erase(id);
  return realm;
}

void SessionTable::release(Holder holder, const std::string& primary, const Context& context) {
  const auto now = std::chrono::steady_clock::now();
  for (auto& [id, s] : sessions_) {
    if (s.holder != holder) continue;
    s.holder = nullptr;
    s.view.held = false;
    s.released = now;
    if (id == primary) s.context = context;
  }
}

std::vector<std::string> SessionTable::expire(std::chrono::steady_clock::time_point now) {
  std::vector<std::string> realms;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const Session& s = it->second;
    if (s.holder || now - s.released < limits_.expire_after) {
      ++it;
      continue;
    }
    if (!s.view.realm.empty()) realms.push_back(s.view.realm);
    it = sessions_.erase(it);
  }
  return realms;
}

std::string SessionTable::page_of(const std::string& id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? std::string() : it->second.view.page;
}

std::vector<SessionView> SessionTable::list() const {
  std::vector<SessionView> out;
  for (const auto& [id, s] : sessions_) out.push_back(s.view);
  return out;
}

std::size_t SessionTable::size() const {
  return sessions_.size();
}

}  // namespace services
