#include "git/commit_queue.hpp"

#include <exception>
#include <future>
#include <string>

namespace editgit {

namespace {
Options deferring() {
  Options o;
  o.defer_index = true;
  return o;
}
}  // namespace

Result<std::unique_ptr<CommitQueue>> CommitQueue::open(const std::string& root, std::size_t bound) {
  auto repo = Repository::open(root, deferring(), false);
  if (!repo) return repo.error();
  return std::unique_ptr<CommitQueue>(new CommitQueue(std::move(*repo), bound));
}

CommitQueue::CommitQueue(Repository repo, std::size_t bound)
    : repo_(std::move(repo)),
      bound_(bound),
      loop_({.name = "eg-commits", .bound = bound, .one_at_a_time = true},
            [this](std::vector<Item>& items, bool) { return step(items); }) {}

CommitQueue::~CommitQueue() { stop(); }

namespace {
Failure full(std::size_t bound) {
  return {Error::queue_full, "the commit queue holds " + std::to_string(bound) +
                                 " commits waiting (its bound), or has stopped; the files stay written but not "
                                 "committed, and the next commit of each carries it"};
}
}  // namespace

Result<void> CommitQueue::submit(Work work, const void* owner) {
  if (!loop_.post({std::move(work), owner})) return full(bound_);
  return {};
}

Result<bool> CommitQueue::join_last(const void* owner, const std::function<void()>& join) {
  if (owner == nullptr) return false;
  auto joined = loop_.join_last([owner](const Item& last) { return last.owner == owner; }, [&](Item&) { join(); });
  if (!joined) return full(bound_);
  return *joined;
}

Result<void> CommitQueue::run(Work work) {
  // From the queue's own thread it would wait for itself forever.
  if (loop_.on_thread())
    return Failure{Error::invalid, "CommitQueue::run called from the commit queue's own thread"};
  std::promise<void> done;
  auto finished = done.get_future();
  auto queued = submit([&](Repository& repo) {
    try {
      work(repo);
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  if (!queued) return queued.error();
  try {
    finished.get();
  } catch (const std::exception& e) {
    return Failure{Error::internal, std::string("the commit failed: ") + e.what()};
  } catch (...) {
    return Failure{Error::internal, "the commit failed"};
  }
  return {};
}

void CommitQueue::wait_idle() {
  // An item of the queue's own, weightless, so the index is written before
  // this returns; after stop() it is refused, and stop()'s last step wrote it.
  std::promise<void> done;
  auto settled = done.get_future();
  const Work write = [&](Repository&) {
    struct Told {
      std::promise<void>& done;
      ~Told() { done.set_value(); }  // whatever settle does
    } told{done};
    settle(true);
  };
  if (!loop_.on_thread() && loop_.post({write, nullptr, false}, 0)) settled.wait();
  loop_.wait_idle();
}

void CommitQueue::stop() { loop_.stop(OnStop::drain); }

std::size_t CommitQueue::after_each(Work observer) {
  std::lock_guard lock(observing_);
  observers_.emplace_back(++observers_added_, std::move(observer));
  return observers_added_;
}

void CommitQueue::forget(std::size_t observer) {
  std::lock_guard lock(observing_);
  std::erase_if(observers_, [observer](const auto& o) { return o.first == observer; });
}

std::optional<std::chrono::steady_clock::time_point> CommitQueue::settle(bool now) {
  using Clock = std::chrono::steady_clock;
  if (repo_.index_deferred() == 0) {
    unsettled_ = 0;
    return std::nullopt;
  }
  if (unsettled_ == 0) deferring_since_ = Clock::now();
  if (!now && ++unsettled_ < kSettleEvery && Clock::now() - deferring_since_ < kSettleAfter)
    return Clock::now();  // a step at once: with an item when one waits, else with none, which writes
  // A failure leaves git status showing the committed files changed, as a
  // commit's own failed index update does; the commits stand.
  (void)repo_.settle_index();
  unsettled_ = 0;
  return std::nullopt;
}

std::optional<std::chrono::steady_clock::time_point> CommitQueue::step(std::vector<Item>& items) {
  if (items.empty()) return settle(true);  // nothing waits (or the last step of stop())
  try {
    items.front().work(repo_);
  } catch (...) {
    // A work that throws ends alone (run() hands its exception to the
    // waiter); the queue, and everyone behind it, goes on.
  }
  if (!items.front().observed) return std::nullopt;
  std::lock_guard lock(observing_);
  for (auto& [number, observer] : observers_) {
    try {
      observer(repo_);
    } catch (...) {
      // An observer's failure is its own; the commits and the other
      // observers go on.
    }
  }
  return settle(false);
}

}  // namespace editgit
