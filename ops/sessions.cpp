// The ops of the agents' sessions: sessions, use, clone, close, bindings,
// clear. A session is bound to a page (the default page, a page chosen with
// `use`, or the realm its clone made); the page ops send a request that
// names no page to its session's page (session_page). The table is the
// gateway's (session_table.hpp); realms are the Node page's (realms.hpp),
// opened and closed on the worker thread.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include "record/commit_messages.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <ctime>

namespace ops {

namespace json = boost::json;

namespace {

std::string utc_text(std::chrono::system_clock::time_point t) {
  const std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The page a session names, as a client reads it: the default page's own
// name rather than "".
json::value page_value(const std::string& page) { return page.empty() ? json::value(nullptr) : json::value(page); }

}  // namespace

std::string session_page(const OpCall& call) { return call.gw.sessions().page_of(call.session); }

void close_realms(services::Gateway& gw, std::vector<std::string> realms) {
  if (realms.empty()) return;
  gw.worker().post([&gw, realms = std::move(realms)] {
    if (services::RealmHost* host = gw.realms())
      for (const std::string& r : realms) host->close(r);
  });
}

void op_sessions(OpCall call) {
  close_realms(call.gw, call.gw.sessions().expire());
  json::array list;
  for (const services::SessionView& s : call.gw.sessions().list()) {
    json::object o{{"id", s.id},
                   {"page", page_value(s.page)},
                   {"agent", s.agent.empty() ? json::value(nullptr) : json::value(s.agent)},
                   {"created", utc_text(s.created)},
                   {"last_active", utc_text(s.last_active)},
                   {"connected", s.held}};
    if (!s.realm.empty()) o["realm"] = true;
    if (s.id == call.session) o["current"] = true;
    list.push_back(std::move(o));
  }
  call.out->done({{"sessions", std::move(list)}});
}

// Binds the session to a page the REPL finds by that name now: its full
// name is kept, so a bare name that later grows ambiguous still means the
// page it meant.
void op_use(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  auto found = [repl, page = std::string(call.params.at("page").get_string())] { return repl->page_name(page); };
  call.gw.worker().run(call.out->executor(), std::move(found),
                       [call](repl::Result<std::string> name) {
                         if (!name) return call.out->fail({services::Error::not_found, name.error().message});
                         if (auto bound = call.gw.sessions().bind(call.session, call.conn.get(), *name); !bound)
                           return call.out->fail(bound.error());
                         call.out->done({{"value", "ok"}, {"page", *name}});
                       });
}

// A realm, then a session bound to it. A session that cannot be made
// closes the realm again.
void op_clone(OpCall call) {
  close_realms(call.gw, call.gw.sessions().expire());
  services::Gateway& gw = call.gw;
  auto made = [call](services::Result<std::string> realm) {
    if (!realm) return call.out->fail(realm.error());
    const std::string id = record::new_session_id();
    if (auto started = call.gw.sessions().start(id, call.conn.get(), *realm, *realm); !started) {
      close_realms(call.gw, {*realm});
      return call.out->fail(started.error());
    }
    call.out->done({{"value", id}, {"page", *realm}});
  };
  gw.worker().post([&gw, ex = call.out->executor(), made = std::move(made)]() mutable {
    services::RealmHost* host = gw.realms();
    auto back = [ex, made = std::move(made)](services::Result<std::string> realm) mutable {
      boost::asio::post(ex, [made = std::move(made), realm = std::move(realm)]() mutable { made(std::move(realm)); });
    };
    if (!host) return back(services::Failure{services::Error::not_found, "clone makes a realm in the built-in Node page, which is off"});
    host->open(std::move(back));
  });
}

// Ends the session; the realm its clone made goes with it. A session bound
// to a browser tab or the default page just ends: the page stays.
void op_close(OpCall call) {
  auto closed = call.gw.sessions().close(call.session);
  if (!closed) return call.out->fail(closed.error());
  if (!closed->empty()) close_realms(call.gw, {*closed});
  call.out->done({{"value", "ok"}});
}

namespace {

// bindings and clear: asked of the session's page (or the one named).
void ask_page(OpCall call, void (repl::Repl::*ask)(const std::string&, std::function<void(repl::Answer)>)) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  std::string name = page_of(call);
  call.gw.worker().post([repl, ask, name = std::move(name), done = final_from_repl(call.out)]() mutable {
    (repl->*ask)(name, std::move(done));
  });
}

}  // namespace

void op_bindings(OpCall call) { ask_page(std::move(call), &repl::Repl::bindings); }
void op_clear(OpCall call) { ask_page(std::move(call), &repl::Repl::clear); }

}  // namespace ops
