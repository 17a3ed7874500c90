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
  s.active = std::chrono::steady_clock::now();
  sessions_.emplace(id, std::move(s));
  return {};
}

// A request of `holder` names `id`: any connection may; one nobody holds
// becomes `holder`'s, so it does not expire under it.
SessionTable::Session* SessionTable::named(const std::string& id, Holder holder) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  Session& s = it->second;
  if (!s.holder) {
    s.holder = holder;
    s.view.held = true;
  }
  s.view.last_active = std::chrono::system_clock::now();
  s.active = std::chrono::steady_clock::now();
  return &s;
}

Result<SessionView> SessionTable::resume(const std::string& id, Holder holder, Context& context) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return Failure{Error::not_found, "no session " + id};
  // The files it has seen are the holding connection's until it goes.
  if (it->second.holder && it->second.holder != holder)
    return Failure{Error::in_use, "session " + id + " is held by a live connection; its context is that one's"};
  Session& s = *named(id, holder);
  context = s.context;
  return s.view;
}

std::optional<SessionView> SessionTable::touch(const std::string& id, Holder holder, std::string_view agent) {
  Session* s = named(id, holder);
  if (!s) return std::nullopt;
  if (!agent.empty()) s->view.agent = agent;
  return s->view;
}

void SessionTable::begin(const std::string& id) {
  if (auto it = sessions_.find(id); it != sessions_.end()) ++it->second.running;
}

void SessionTable::end(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.running == 0) return;
  --it->second.running;
  it->second.active = std::chrono::steady_clock::now();
}

Result<void> SessionTable::bind(const std::string& id, Holder holder, const std::string& page) {
  Session* s = named(id, holder);
  if (!s) return Failure{Error::not_found, "no session " + id};
  s->view.page = page;
  return {};
}

Result<std::string> SessionTable::close(const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return Failure{Error::not_found, "no session " + id};
  std::string realm = std::move(it->second.view.realm);
  sessions_.erase(it);
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
    const bool unheld = !s.holder && now - s.released >= limits_.expire_after;
    const bool idle_realm = !s.view.realm.empty() && now - s.active >= limits_.realm_idle;
    if (s.running > 0 || !(unheld || idle_realm)) {
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
