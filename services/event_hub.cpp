#include "services/event_hub.hpp"

#include "services/replies.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace services {

namespace json = boost::json;
namespace net = boost::asio;

EventHub::EventHub(net::any_io_executor worker) : worker_(worker), timer_(worker) {}

void EventHub::set_snapshots(std::function<json::array()> pages, std::function<json::object()> origins) {
  pages_ = std::move(pages);
  origins_ = std::move(origins);
}

std::vector<EventHub::Watcher> EventHub::live_watchers() {
  std::erase_if(watchers_, [](const Watcher& w) { return w.alive.expired(); });
  watched_ = !watchers_.empty();
  return watchers_;
}

Result<bool> EventHub::watch(std::shared_ptr<Replies> out, std::weak_ptr<void> alive) {
  {
    std::lock_guard lock(mutex_);
    live_watchers();
    if (watchers_.size() >= max_watchers)
      return Failure{Error::too_many_requests,
                     "the gateway has " + std::to_string(max_watchers) + " watchers; close a dashboard first"};
    watchers_.push_back({out, std::move(alive)});
    watched_ = true;
  }
  // Its first view: the pages as they are, and the origins waiting.
  Watcher w{std::move(out), {}};
  net::post(worker_, [this, w] {
    std::vector<Watcher> one{w};
    if (pages_) send({{"type", "pages"}, {"pages", pages_()}}, one);
    if (origins_) {
      json::object o = origins_();
      o["type"] = "origins";
      send(o, one);
    }
  });
  return true;
}

void EventHub::schedule() {
  if (scheduled_ || watchers_.empty()) return;
  scheduled_ = true;
  net::post(worker_, [this] {
    timer_.expires_after(coalesce);
    timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec) flush();
    });
  });
}

void EventHub::pages_changed() {
  std::lock_guard lock(mutex_);
  pages_dirty_ = true;
  schedule();
}

void EventHub::log_changed(const std::string& page, const std::string& log) {
  std::lock_guard lock(mutex_);
  // Bounded by the pages there are: one entry per page.
  logs_dirty_[page] = log;
  schedule();
}

void EventHub::committed(const std::string& commit) {
  std::lock_guard lock(mutex_);
  head_ = commit;
  schedule();
}

void EventHub::origins_changed() {
  std::lock_guard lock(mutex_);
  origins_dirty_ = true;
  schedule();
}

void EventHub::run_finished(json::object run) {
  std::vector<Watcher> to;
  {
    std::lock_guard lock(mutex_);
    to = live_watchers();
  }
  send({{"type", "run"}, {"run", std::move(run)}}, to);
}

void EventHub::pushed(json::object push) {
  std::vector<Watcher> to;
  {
    std::lock_guard lock(mutex_);
    to = live_watchers();
  }
  send({{"type", "push"}, {"push", std::move(push)}}, to);
}

void EventHub::flush() {
  std::vector<Watcher> to;
  bool pages = false, origins = false;
  std::map<std::string, std::string> logs;
  std::string head;
  {
    std::lock_guard lock(mutex_);
    scheduled_ = false;
    to = live_watchers();
    pages = std::exchange(pages_dirty_, false);
    origins = std::exchange(origins_dirty_, false);
    logs = std::exchange(logs_dirty_, {});
    head = std::exchange(head_, {});
  }
  if (to.empty()) return;
  if (pages && pages_) send({{"type", "pages"}, {"pages", pages_()}}, to);
  for (const auto& [page, log] : logs) send({{"type", "exchange"}, {"page", page}, {"log", log}}, to);
  if (!head.empty()) send({{"type", "commit"}, {"commit", head}}, to);
  if (origins && origins_) {
    json::object o = origins_();
    o["type"] = "origins";
    send(o, to);
  }
}

void EventHub::send(const json::object& event, const std::vector<Watcher>& to) {
  for (const Watcher& w : to)
    net::post(w.out->executor(), [out = w.out, event] { out->part({{"event", event}}); });
}

}  // namespace services
