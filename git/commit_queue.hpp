// The workspace's one commit queue. Every commit editgate makes in a
// workspace (an edit run's, the REPL's requests and replies, a page's
// connect, a save committed as the user's earlier state) is a piece of work
// run here: on one thread, with a repository handle of its own, in the
// order submitted. So two writers of one file commit in the order they wrote
// it, without waiting on each other, and git is never on a socket's path.
//
// The index: commits on the branch defer their index entries
// (Options::defer_index), which are written in one write of the index when
// the queue has nothing more waiting, or after kSettleEvery items or
// kSettleAfter of deferring under a steady stream, and by wait_idle() and
// stop(). A busy queue so writes the index once for many commits.
//
// Bounded: past `bound` waiting items, submit() refuses with
// Error::queue_full and the caller keeps its file written but uncommitted
// (the next commit of that file carries it as its earlier state).
#pragma once

#include "git/error.hpp"
#include "git/repository.hpp"
#include "git/worker_loop.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace editgit {

class CommitQueue {
 public:
  using Work = std::function<void(Repository&)>;
  static constexpr std::size_t default_bound = 10'000;
  static constexpr int kSettleEvery = 32;
  static constexpr std::chrono::milliseconds kSettleAfter{50};

  // Opens the repository of `root` for the queue's thread, and starts it.
  static Result<std::unique_ptr<CommitQueue>> open(const std::string& root, std::size_t bound = default_bound);
  ~CommitQueue();  // runs what is queued, then stops
  CommitQueue(const CommitQueue&) = delete;
  CommitQueue& operator=(const CommitQueue&) = delete;

  // Queues `work` behind everything submitted so far. `owner` tags the item
  // for join_last. Error::queue_full past the bound: `work` never runs.
  Result<void> submit(Work work, const void* owner = nullptr);
  // When the last item queued is `owner`'s and has not started, `join` is
  // called (under the queue's lock, so the item cannot start meanwhile) to
  // add to it, and this returns true; else false and nothing is called. A
  // join counts against the bound like an item.
  Result<bool> join_last(const void* owner, const std::function<void()>& join);
  // Runs `work` after everything submitted so far and waits for it. Never
  // from the queue's own thread (work that runs there waits for nothing).
  Result<void> run(Work work);

  // Adds `observer`, called on the queue's thread after each piece of work
  // (whoever follows the commits: the dashboard's events, the pusher), in
  // the order added. Returns its number, for forget(). Observers must be
  // quick: the next commit waits for them.
  std::size_t after_each(Work observer);
  // Removes an observer; once this returns it is not running and never runs
  // again, so what it points at may go.
  void forget(std::size_t observer);

  // Blocks until everything submitted so far has run and the index holds
  // its commits.
  void wait_idle();
  // Runs what is queued, then stops the thread; later submits are refused
  // (Error::queue_full).
  void stop();

 private:
  CommitQueue(Repository repo, std::size_t bound);

  struct Item {
    Work work;
    const void* owner;
    bool observed = true;  // false: the queue's own (the index's write), no commit to tell of
  };
  // One item on the queue's thread, then the observers.
  std::optional<std::chrono::steady_clock::time_point> step(std::vector<Item>& items);

  // The index's deferred entries written now, or when to write them.
  std::optional<std::chrono::steady_clock::time_point> settle(bool now);

  Repository repo_;  // the queue's thread only
  int unsettled_ = 0;  // items run since the index was last written (the queue's thread only)
  std::chrono::steady_clock::time_point deferring_since_;
  const std::size_t bound_;
  // Guards the observers: added and forgotten on any thread, run on the
  // queue's; held while they run, so forget() waits for them.
  std::mutex observing_;
  std::vector<std::pair<std::size_t, Work>> observers_;
  std::size_t observers_added_ = 0;
  WorkerLoop<Item> loop_;  // last: its thread uses what is above
};

}  // namespace editgit
