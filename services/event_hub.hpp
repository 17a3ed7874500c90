// The gateway's live events, for the dashboard: what the op `watch` streams.
// Whoever changes something signals it here (the REPL on the worker
// thread, the commit queue, the approvals, the edit runs); signals are
// coalesced for `coalesce` and then sent to every watcher as one event of
// each kind, so a burst of exchanges costs the watchers a few messages, not
// one per write, and nobody polls files. Signals come from any thread; the
// snapshots are taken on the worker thread, where the REPL lives.
#pragma once

#include "services/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace services {

class Replies;

class EventHub {
 public:
  static constexpr std::size_t max_watchers = 32;
  static constexpr std::chrono::milliseconds coalesce{50};

  // `worker`: the worker thread's executor, where snapshots are taken.
  explicit EventHub(boost::asio::any_io_executor worker);

  // What `pages` and `origins` events carry: set once at start.
  // pages: called on the worker thread; origins: any thread.
  void set_snapshots(std::function<boost::json::array()> pages, std::function<boost::json::object()> origins);

  // A new watcher: its events go to `out` (each posted to out's executor)
  // while `alive` lives; it gets a `pages` and an `origins` event at once.
  // too_many_requests past max_watchers.
  Result<bool> watch(std::shared_ptr<Replies> out, std::weak_ptr<void> alive);

  // Whether anybody watches: signals that cost something to make (reading
  // HEAD) are not made for nobody.
  bool watched() const { return watched_.load(); }

  void pages_changed();
  void log_changed(const std::string& page, const std::string& log);
  void committed(const std::string& commit);
  void origins_changed();
  // Not coalesced: every run is an event of its own.
  void run_finished(boost::json::object run);
  // A push's outcome (services/pusher.hpp), as the push op answers it. Not
  // coalesced; any thread.
  void pushed(boost::json::object push);

 private:
  struct Watcher {
    std::shared_ptr<Replies> out;
    std::weak_ptr<void> alive;
  };
  void schedule();  // with mutex_ held
  void flush();     // on the worker thread
  void send(const boost::json::object& event, const std::vector<Watcher>& to);
  std::vector<Watcher> live_watchers();  // drops the gone ones

  boost::asio::any_io_executor worker_;
  boost::asio::steady_timer timer_;  // the worker's; armed under mutex_, waited on the worker
  std::function<boost::json::array()> pages_;
  std::function<boost::json::object()> origins_;
  // Guards watchers_ and scheduled_: watchers join on their door's executor,
  // the REPL, the commit queue and the approvals signal from their threads.
  std::mutex mutex_;
  std::vector<Watcher> watchers_;
  std::atomic<bool> watched_{false};
  bool scheduled_ = false;
  bool pages_dirty_ = false, origins_dirty_ = false;
  std::map<std::string, std::string> logs_dirty_;  // page -> log
  std::string head_;                               // the newest commit not announced yet
};

}  // namespace services
