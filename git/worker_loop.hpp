// A thread of its own that owns a bounded queue of items: the one shape of
// the worker loops that run beside the io_contexts (the commit queue, the
// pack thread, the status files, the pusher). Each owner keeps its policy in
// its `step`, called on the thread without the lock: it gets what a step
// takes off the queue (the first item, or every item waiting) and says when
// it wants a step again with nothing new (a deadline, for work that waits
// for a pause); until then the thread sleeps, woken by an item, wake() or
// stop(). What the step touches besides its items is the thread's alone and
// needs no lock.
//
// Bounded: each item weighs what its poster says (1 by default, 0 for a
// notice that takes no room); past `bound` waiting, post refuses with
// Refused::full, and after stop with Refused::stopped; the owner turns
// these into its own named errors. Nothing in here is about git: it sits in
// git/ as the lowest layer that runs such a loop.
#pragma once

#include <boost/system/result.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace editgit {

// Why post or join_last refused an item.
enum class Refused {
  full = 1,  // `bound` waits already
  stopped,   // stop() was called: nothing is taken any more
};

template <class T>
using LoopResult = boost::system::result<T, Refused>;

struct WorkerLoopOptions {
  const char* name = "eg-worker";  // the thread's name in top -H and perf (15 characters at most)
  std::size_t bound = std::numeric_limits<std::size_t>::max();  // the weight that may wait
  bool one_at_a_time = false;  // a step takes the first item (else all that wait)
  int nice = 0;                // the thread's own nice value (Linux), above 0 to yield to the sockets
};

// What stop() does with the items still queued.
enum class OnStop {
  drain,    // steps them as usual, then one last step (`last` true, no items)
  abandon,  // drops them once the step under way returns; no last step
};

// Names the calling thread and sets its nice value (worker_loop.cpp).
void set_up_worker_thread(const char* name, int nice);

template <class Item>
class WorkerLoop {
 public:
  using Clock = std::chrono::steady_clock;
  // When to step again with nothing new; nullopt: only for an item or the end.
  using Next = std::optional<Clock::time_point>;
  using Step = std::function<Next(std::vector<Item>& items, bool last)>;

  // Starts the thread: declare the loop after everything `step` uses. A step
  // that throws is taken as one that returned nullopt.
  WorkerLoop(WorkerLoopOptions options, Step step)
      : opt_(options), step_(std::move(step)), thread_([this] { run(); }) {}
  ~WorkerLoop() { stop(OnStop::drain); }
  WorkerLoop(const WorkerLoop&) = delete;
  WorkerLoop& operator=(const WorkerLoop&) = delete;

  // Queues `item` behind every item queued so far. Any thread.
  LoopResult<void> post(Item item, std::size_t weight = 1) {
    bool was_empty = false;
    {
      std::lock_guard lock(mutex_);
      if (auto refused = refuses(weight)) return *refused;
      was_empty = queue_.empty();
      queue_.push_back({std::move(item), weight});
      waiting_ += weight;
    }
    // A queue that held items already has woken the thread, or is read by
    // the step under way before the thread sleeps again.
    if (was_empty) wake_.notify_one();
    return {};
  }

  // When the last item waiting (not started) satisfies `joins`, `join` adds
  // to it under the lock (so it cannot start meanwhile), its weight grows by
  // `weight`, and this returns true; else false and `join` is not called.
  template <class Joins, class Join>
  LoopResult<bool> join_last(Joins joins, Join join, std::size_t weight = 1) {
    std::lock_guard lock(mutex_);
    if (queue_.empty() || !joins(std::as_const(queue_.back().item))) return false;
    if (auto refused = refuses(weight)) return *refused;
    join(queue_.back().item);
    queue_.back().weight += weight;
    waiting_ += weight;
    return true;
  }

  // A step soon, with no items if none wait (before its deadline too).
  void wake() {
    {
      std::lock_guard lock(mutex_);
      woken_ = true;
    }
    wake_.notify_one();
  }

  // Blocks until no item waits and no step runs, or the thread has ended.
  void wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return ended_ || (queue_.empty() && !busy_); });
  }

  bool on_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

  // Refuses items from now on, drains or abandons those queued, and joins
  // the thread. Never from the thread itself; a second call returns at once.
  void stop(OnStop how) {
    {
      std::lock_guard lock(mutex_);
      if (state_ == State::running) state_ = how == OnStop::drain ? State::draining : State::abandoning;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  enum class State { running, draining, abandoning };
  struct Entry {
    Item item;
    std::size_t weight;
  };

  // Under mutex_.
  std::optional<Refused> refuses(std::size_t weight) const {
    if (state_ != State::running) return Refused::stopped;
    if (weight > 0 && (waiting_ >= opt_.bound || opt_.bound - waiting_ < weight)) return Refused::full;
    return std::nullopt;
  }

  // Under mutex_: the first item or all of them.
  std::vector<Item> take() {
    std::vector<Item> items;
    const std::size_t n = opt_.one_at_a_time ? std::min<std::size_t>(1, queue_.size()) : queue_.size();
    items.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      waiting_ -= queue_.front().weight;
      items.push_back(std::move(queue_.front().item));
      queue_.pop_front();
    }
    return items;
  }

  void run() {
    set_up_worker_thread(opt_.name, opt_.nice);
    Next next;
    std::unique_lock lock(mutex_);
    for (;;) {
      const auto ready = [this] { return !queue_.empty() || woken_ || state_ != State::running; };
      // Past the deadline with nothing new, the step runs with no items.
      if (next)
        wake_.wait_until(lock, *next, ready);
      else
        wake_.wait(lock, ready);
      if (state_ == State::abandoning) break;
      const bool last = state_ == State::draining && queue_.empty();
      std::vector<Item> items = take();
      woken_ = false;
      busy_ = true;
      lock.unlock();
      try {
        next = step_(items, last);
      } catch (...) {
        next.reset();
      }
      items.clear();  // what the items hold goes outside the lock
      lock.lock();
      busy_ = false;
      idle_.notify_all();
      if (last) break;
    }
    std::deque<Entry> dropped;
    dropped.swap(queue_);
    waiting_ = 0;
    ended_ = true;
    lock.unlock();
    idle_.notify_all();
  }

  const WorkerLoopOptions opt_;
  const Step step_;
  // Guards the queue and the flags below: posters on any thread, the loop's
  // thread taking items; never held while a step runs.
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Entry> queue_;
  std::size_t waiting_ = 0;  // the weights queued
  State state_ = State::running;
  bool woken_ = false, busy_ = false, ended_ = false;
  std::thread thread_;
};

}  // namespace editgit
