// The agents' sessions: a session is where a connection's requests run
// (its page: the default one, a page it chose with `use`, or the realm its
// `clone` made) and what a reconnecting client takes back with `resume`
// (that page and the files it has seen, the edit protocol's context).
// A session is addressed by its id: any authenticated connection that names
// it may use it, interrupt what runs there or close it (clients that connect
// per call, and a command line's Ctrl-C, come back on new connections). A
// connection holds the session it started in, made or resumed, and one
// nobody holds that it names; only a resume of a session another live
// connection holds is refused (in_use): the files it has seen live in that
// connection. Sessions nobody holds expire after SessionLimits::expire_after;
// a realm's session with no request for SessionLimits::realm_idle is closed
// whoever holds it; there are at most SessionLimits::max_sessions
// (too_many_sessions past it).
//
// Shared by every connection, all on the network thread (the doors, their
// ops and the MCP server run on the one io_context, each on its strand of
// that one thread): the table is that thread's state and takes no lock.
#pragma once

#include "services/error.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace services {

struct SessionLimits {
  std::size_t max_sessions = 2048;  // above the connections and realms there can be at once
  std::chrono::seconds expire_after{600};  // a session no connection holds
  // A realm's session with no request running and none for this long is
  // closed with its realm, held or not (serve --realm-idle).
  std::chrono::seconds realm_idle{600};
};

// One session as `sessions` lists it.
struct SessionView {
  std::string id;
  std::string page;   // the page its requests go to; "" for the default page
  std::string agent;  // the agent its last request named; "" for none yet
  std::string realm;  // the realm its clone made, closed with it; "" for none
  std::chrono::system_clock::time_point created, last_active;
  bool held = false;  // a live connection holds it
};

class SessionTable {
 public:
  // A connection, as the table tells them apart; never dereferenced.
  using Holder = const void*;
  using Context = std::optional<std::set<std::string>>;

  explicit SessionTable(SessionLimits limits = {});

  // A new session held by `holder`, bound to `page` ("" the default page),
  // owning `realm` ("" none). Past the bound, the session nobody has held
  // longest that owns no realm makes room; too_many_sessions when none can.
  Result<void> start(const std::string& id, Holder holder, std::string page = "", std::string realm = "");

  // A reconnecting client takes `id` back: its page, and the files it had
  // seen. not_found for a session that is not (or no longer) there, in_use
  // for one another live connection holds (those files are that one's).
  Result<SessionView> resume(const std::string& id, Holder holder, Context& context);

  // A request of `holder` names session `id`: its page, its last activity
  // and agent are updated; `holder` takes it when nobody holds it. nullopt
  // for an id the table does not know (a name for the commits only, as
  // before sessions were kept).
  std::optional<SessionView> touch(const std::string& id, Holder holder, std::string_view agent = {});

  // A request in session `id` starts, or ends (its final reply): a session
  // with requests running is never idle, and its idle time counts from the
  // end of the last one. Ids the table does not know: nothing.
  void begin(const std::string& id);
  void end(const std::string& id);

  // Binds session `id` to `page`.
  Result<void> bind(const std::string& id, Holder holder, const std::string& page);

  // Ends session `id`, whoever holds it: the realm it made, for the caller
  // to close ("" none).
  Result<std::string> close(const std::string& id);

  // The connection is gone: nobody holds its sessions any more, and
  // `primary` (the session it started in) keeps `context` for a resume.
  void release(Holder holder, const std::string& primary, const Context& context);

  // Drops the sessions nobody has held for longer than expire_after, and
  // the realms' sessions idle for realm_idle: the realms they made, for the
  // caller to close.
  std::vector<std::string> expire(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

  // The page session `id` is bound to; "" for the default page and for an
  // id the table does not know.
  std::string page_of(const std::string& id) const;

  std::vector<SessionView> list() const;
  std::size_t size() const;
  const SessionLimits& limits() const { return limits_; }

 private:
  struct Session {
    SessionView view;
    Holder holder = nullptr;
    std::chrono::steady_clock::time_point released;  // when nobody held it any more
    std::chrono::steady_clock::time_point active;    // its last request's start or end
    std::size_t running = 0;                         // its requests without a final reply yet
    Context context;
  };
  Session* named(const std::string& id, Holder holder);
  bool make_room();

  SessionLimits limits_;
  std::map<std::string, Session> sessions_;
};

}  // namespace services
