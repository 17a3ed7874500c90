#include "git/commit_queue.hpp"

#include <pthread.h>

#include <exception>
#include <future>
#include <string>

namespace editgit {

Result<std::unique_ptr<CommitQueue>> CommitQueue::open(const std::string& root, std::size_t bound) {
  auto repo = Repository::open(root, {}, false);
  if (!repo) return repo.error();
  return std::unique_ptr<CommitQueue>(new CommitQueue(std::move(*repo), bound));
}

CommitQueue::CommitQueue(Repository repo, std::size_t bound)
    : repo_(std::move(repo)), bound_(bound), thread_([this] { loop(); }) {}

CommitQueue::~CommitQueue() { stop(); }

namespace {
Failure full(std::size_t bound) {
  return {Error::queue_full, "the commit queue holds " + std::to_string(bound) +
                                 " commits waiting (its bound), or has stopped; the files stay written but not "
                                 "committed, and the next commit of each carries it"};
}
}  // namespace

Result<void> CommitQueue::submit(Work work, const void* owner) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || waiting_ >= bound_) return full(bound_);
    queue_.push_back({std::move(work), owner, 1});
    ++waiting_;
  }
  wake_.notify_one();
  return {};
}

Result<bool> CommitQueue::join_last(const void* owner, const std::function<void()>& join) {
  std::lock_guard lock(mutex_);
  if (queue_.empty() || queue_.back().owner != owner || owner == nullptr) return false;
  if (stopping_ || waiting_ >= bound_) return full(bound_);
  join();
  ++queue_.back().weight;
  ++waiting_;
  return true;
}

Result<void> CommitQueue::run(Work work) {
  // From the queue's own thread it would wait for itself forever.
  if (std::this_thread::get_id() == thread_.get_id())
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
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void CommitQueue::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::size_t CommitQueue::after_each(Work observer) {
  std::lock_guard lock(observing_);
  observers_.emplace_back(++observers_added_, std::move(observer));
  return observers_added_;
}

void CommitQueue::forget(std::size_t observer) {
  std::lock_guard lock(observing_);
  std::erase_if(observers_, [observer](const auto& o) { return o.first == observer; });
}

void CommitQueue::loop() {
  ::pthread_setname_np(::pthread_self(), "eg-commits");  // for top -H and perf
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
      waiting_ -= item.weight;
      busy_ = true;
    }
    try {
      item.work(repo_);
    } catch (...) {
      // A work that throws ends alone (run() hands its exception to the
      // waiter); the queue, and everyone behind it, goes on.
    }
    {
      std::lock_guard lock(observing_);
      for (auto& [number, observer] : observers_) {
        try {
          observer(repo_);
        } catch (...) {
          // An observer's failure is its own; the commits and the other
          // observers go on.
        }
      }
    }
    {
      std::lock_guard lock(mutex_);
      busy_ = false;
    }
    idle_.notify_all();
  }
}

}  // namespace editgit
