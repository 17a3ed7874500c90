// What every connection of one `editgate serve` shares: where it listens,
// the cookie, the limits, the worker, and the list of live connections that a
// shutdown has to stop. No Beast here: the connections register themselves as
// Stoppable.
#pragma once

#include "services/dashboard_auth.hpp"
#include "services/origin_approvals.hpp"
#include "services/realms.hpp"
#include "services/session_table.hpp"
#include "services/worker.hpp"
#include "services/security.hpp"
#include "repl/render_thread.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {
class Repl;
}

namespace services {

class EventHub;
class OwnedPages;
class Pusher;

struct ServeLimits {
  std::size_t header_bytes = 16 * 1024;
  std::size_t ws_message_bytes = 16u << 20;   // one WebSocket message (the edit op's whole text)
  std::size_t auth_message_bytes = 4 * 1024;  // the first message, before the cookie is known
  // Replies queued for one agent's WebSocket: over `high` its reading stops
  // until the queue drains under `low`; past `max` (what requests already
  // read still answer) the connection closes with slow_client.
  std::size_t ws_queue_high = 1u << 20;
  std::size_t ws_queue_low = 256u << 10;
  std::size_t ws_queue_max = 64u << 20;
  std::size_t connections = 128;              // agents, and requests not yet told apart
  std::size_t page_sockets = 256;             // the page door's, a pool of their own
  std::size_t page_sockets_per_origin = 32;
  std::size_t streamed_edits = 16;            // open edit-begin streams per WebSocket
  // Requests one WebSocket has sent and not had the final reply of, and the
  // bytes of their messages (an edit keeps its text until it is done):
  // past either a request is refused too_many_requests.
  std::size_t ws_open_requests = 256;
  std::size_t ws_open_request_bytes = 64u << 20;
  std::chrono::milliseconds header_timeout{10'000};  // the whole request head (slow clients)
  std::chrono::milliseconds body_timeout{60'000};    // between two pieces of a body
  std::chrono::milliseconds auth_timeout{10'000};    // from the upgrade to the auth message
  std::chrono::milliseconds ws_idle_timeout{120'000};  // a silent peer that answers no ping
  std::chrono::milliseconds shutdown_grace{5'000};   // then connections still open are cut
  SessionLimits sessions;                            // the agents' sessions and realms
  // The dashboard's log reads, rendered off the worker thread: each waits
  // at most `render_budget` for its HTML (then the rest comes as plain
  // text), and past `render_queue` reads waiting a read is refused busy.
  std::chrono::milliseconds render_budget{2'000};
  std::size_t render_queue = 8;
};

// A live connection, as shutdown sees it. stop() may be called from any thread.
class Stoppable {
 public:
  virtual ~Stoppable() = default;
  virtual void stop() = 0;
};

class Gateway {
 public:
  Gateway(Binding binding, std::string cookie, Worker& worker, ServeLimits limits, std::string workspace_id);

  const Binding& binding() const { return binding_; }
  const std::string& cookie() const { return cookie_; }
  Worker& worker() { return worker_; }
  // The live pages; null when the gateway runs none. Used on the worker thread.
  repl::Repl* repl() { return repl_; }
  void set_repl(repl::Repl* r) { repl_ = r; }
  // The built-in Node page's realms; null without it. Worker thread only.
  RealmHost* realms() { return realms_; }
  void set_realms(RealmHost* r) { realms_ = r; }
  // The pages of the gateway's own browser (page-open); null when serve has
  // none. Set before any op runs; used on the worker thread.
  OwnedPages* owned() { return owned_; }
  void set_owned(OwnedPages* o) { owned_ = o; }
  // The live events the dashboard watches; null when nobody set them up
  // (tests of other parts). Any thread.
  EventHub* events() { return events_; }
  void set_events(EventHub* e) { events_ = e; }
  // Pushes the branch to `serve --push`'s remote; null without one. Any thread.
  Pusher* pusher() { return pusher_; }
  void set_pusher(Pusher* p) { pusher_ = p; }
  // Who may open the dashboard (the network thread only), and the origins
  // decided on it (the network thread; snapshots on the worker too).
  DashboardAuth& dashboard() { return dashboard_; }
  OriginApprovals& approvals() { return approvals_; }
  // "http://127.0.0.1:8302/", as `editgate serve` prints it; set before any
  // connection is accepted.
  const std::string& url() const { return url_; }
  void set_url(std::string url) { url_ = std::move(url); }
  // The cookie's file, named to a client that lacks the token; set before
  // any connection is accepted.
  const std::string& cookie_file() const { return cookie_file_; }
  void set_cookie_file(std::string path) { cookie_file_ = std::move(path); }
  // The agents' sessions: the network thread only (every connection's strand).
  SessionTable& sessions() { return sessions_; }
  const ServeLimits& limits() const { return limits_; }
  // The thread that renders Markdown for the dashboard (log_rendering.hpp). Any thread.
  repl::RenderThread& renderer() { return renderer_; }
  const std::string& workspace_id() const { return workspace_id_; }
  // New at every start, so a client can tell a restarted gateway.
  const std::string& nonce() const { return nonce_; }
  std::chrono::steady_clock::time_point started() const { return started_; }

  // Counts a connection in; false (and not counted) over the limit.
  bool enter();
  void leave();
  std::size_t connections() const { return connections_.load(); }
  // A page socket moves from the pool above to the pages' own, so pages
  // never take the agents' places; false (nothing moved) when its origin
  // or all pages are at their limit.
  bool enter_page(const std::string& origin);
  void leave_page(const std::string& origin);

  void join(std::weak_ptr<Stoppable> connection);

  // Asks for a clean stop (signals, the shutdown op); the first call runs
  // the handler serve installed.
  void request_stop();
  bool stopping() const { return stopping_.load(); }
  void on_stop(std::function<void()> handler) { on_stop_ = std::move(handler); }
  // Tells every live connection to stop.
  void stop_connections();

 private:
  Binding binding_;
  std::string cookie_;
  std::string cookie_file_;
  Worker& worker_;
  repl::Repl* repl_ = nullptr;
  RealmHost* realms_ = nullptr;
  OwnedPages* owned_ = nullptr;
  EventHub* events_ = nullptr;
  Pusher* pusher_ = nullptr;
  DashboardAuth dashboard_;
  OriginApprovals approvals_;
  std::string url_;
  SessionTable sessions_;
  ServeLimits limits_;
  repl::RenderThread renderer_{limits_.render_queue};
  std::string workspace_id_;
  std::string nonce_;
  std::chrono::steady_clock::time_point started_;
  std::atomic<std::size_t> connections_{0};
  // Guards page_sockets_ and page_origins_: counted in by the page door on
  // the network thread, out by a page socket's destructor, wherever its
  // last owner lets it go (the REPL's link locks one briefly on the worker
  // thread).
  std::mutex pages_mutex_;
  std::size_t page_sockets_ = 0;
  std::map<std::string, std::size_t> page_origins_;  // live page sockets by origin
  std::atomic<bool> stopping_{false};
  std::function<void()> on_stop_;
  // Guards live_: connections join, and a stop walks it, on the network
  // thread today (signals and the shutdown op post there); Stoppable::stop
  // may be called from any thread, so the list does not assume one.
  std::mutex mutex_;
  std::vector<std::weak_ptr<Stoppable>> live_;
};

// The page door's Origin rule: loopback and --allow-origin pass; any
// other origin waits for the person's decision on the dashboard
// (origin_pending), or was refused there (forbidden_origin). A tab of
// another workspace (`workspace`, from the socket's URL, not this one's) is
// let through to its hello, which refuses it wrong_workspace with words for
// its console: its origin is never put before the person.
std::optional<Failure> page_origin_refused(Gateway& gw, std::string_view origin, std::string_view workspace);

}  // namespace services
