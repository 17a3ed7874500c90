// Origins the person allows or refuses on the dashboard. A page from an
// origin that neither the loopback rule nor --allow-origin admits waits
// here as pending (its adapter keeps retrying) until the person decides;
// the decision lasts while this gateway runs (--allow-origin is the lasting
// one). Agents cannot decide: a page's text steers an agent, and must not
// widen who may run code through it; nor can a dashboard signed in by a URL
// minted through the API (ConnectionState::person). The network thread and the worker
// thread (see mutex_).
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace services {

// The site an origin belongs to, as far as a bound can tell without the
// public-suffix list (none on the machine): the host's last two labels
// ("a.b.example.com" -> "example.com"); the whole host for an IP literal
// or a name of one label ("localhost"). Under a two-label public suffix
// ("co.uk") it groups more than one site: the bound errs on the strict side.
std::string site_of(std::string_view origin);

class OriginApprovals {
 public:
  static constexpr std::size_t max_pending = 16;
  // Pending origins of one site (site_of): one site's subdomains cannot
  // fill the list the person's own new origin needs a place in.
  static constexpr std::size_t max_pending_per_site = 4;
  // A pending origin no page asked for again within this is forgotten.
  static constexpr std::chrono::minutes pending_life{10};

  // full: the list is; site_full: the origin's site has its share pending.
  enum class Verdict { allowed, refused, pending, full, site_full };

  // A page from `origin` (normalized) asks to connect.
  Verdict ask(const std::string& origin);
  // The person's decision on an origin (normalized): one that asked, or one
  // the person typed before any page from it asked.
  void decide(const std::string& origin, bool allow);
  // {"pending":[{"origin","first_seen","attempts"}],"allowed":[..],"refused":[..]}
  boost::json::object snapshot();
  // Called (outside the lock) whenever the lists change.
  void on_change(std::function<void()> f) { changed_ = std::move(f); }

 private:
  enum class State { pending, allowed, refused };
  struct Entry {
    State state = State::pending;
    std::chrono::system_clock::time_point first_seen;
    std::chrono::steady_clock::time_point last_asked;
    std::size_t attempts = 0;
  };
  void forget_stale(std::chrono::steady_clock::time_point now);
  // Guards origins_: the page door asks and the dashboard's ops decide on
  // the network thread; the event hub's snapshot reads on the worker thread.
  // on_change's callback is called on the network thread, outside it.
  std::mutex mutex_;
  std::map<std::string, Entry> origins_;
  std::function<void()> changed_;
};

}  // namespace services
