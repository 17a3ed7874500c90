// The REPL's commits: requests and replies, a page's connect, notes, and
// the text of a log as saved, each a CommitItem. They go to the REPL's own
// ref beside the branch (record/repl_ref.hpp), through the workspace's one
// commit queue (git/commit_queue.hpp), so git is never on the path that
// answers an agent.
//
// At most one commit per exchange: an item that opens an exchange (a
// request) is held until the item that closes it (its reply) arrives, and
// both go in one commit; past `hold` the request is committed alone, so a
// job that runs long is on the record while it runs. Commits are at least
// `gap` apart: what arrives meanwhile waits and goes into the next one, so
// under any load the commits per second stay bounded and each names its
// exchanges.
#pragma once

#include "git/commit_queue.hpp"
#include "git/pack_thread.hpp"
#include "git/repository.hpp"
#include "repl/chatlog.hpp"
#include "repl/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace repl {

struct CommitItem {
  std::vector<FileChange> files;  // workspace paths under debug/ or debug-archive/
  editgit::Identity author;
  std::string summary;  // its line: the subject when alone, a line of a group
  std::vector<std::pair<std::string, std::string>> trailers;
  // An exchange, "page/job": opened by its request, closed by its reply.
  std::vector<std::string> opens, closes;
  std::string page;      // the page of the exchange
  std::string headline;  // a request's code ("`40 + 2`"), a reply's outcome ("→ 42")
  // The log as saved is this item's own change (a request an agent or a
  // person appended): no "saved outside editgate" commit before it.
  bool takes_save = false;
  // Called on the commit queue's thread once the item is in a commit: with
  // its id, or "" when the commit failed, changed nothing, or was refused
  // (the queue was full).
  std::function<void(const std::string& id)> committed;
};

struct CommitterOptions {
  std::chrono::milliseconds hold{1000};  // a request waits this long for its reply
  std::chrono::milliseconds gap{50};     // between two commits, at least
  // ... and at least the time the last commit's logs take at this rate
  // (a commit writes each log whole: 1.5 MB of log, 0.75 s).
  std::size_t bytes_per_second = 2 << 20;
  // ... but never more than this: a log's commit lags its reply by about
  // this much at most (1,000 realms' logs are megabytes together).
  std::chrono::milliseconds max_gap{1000};
  // Items held while the queue refuses more (it is at its bound): past
  // this, submit() refuses too.
  std::size_t max_held = 10'000;
  // The REPL's objects packed as they accumulate (git/pack_thread.hpp), by
  // a thread started at the first commit.
  bool pack = true;
  editgit::PackThreadOptions packing;
};

class Committer {
 public:
  using Options = CommitterOptions;

  // On the workspace's commit queue. Items are held on `ex` (the REPL's
  // thread, where submit is called); without one, each goes at once.
  explicit Committer(editgit::CommitQueue& queue, std::optional<boost::asio::any_io_executor> ex = std::nullopt,
                     Options options = {});
  // On a commit queue of its own, opened on the repository of `root`.
  static Result<std::unique_ptr<Committer>> start(const std::string& root);
  // Commits what is held, and waits for the items it queued (their work
  // refers to it). On the executor's thread, or after it stopped.
  ~Committer();
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;

  // Taken (moved from) and held until it can go, or
  // Error::commit_queue_full when the queue is at its bound and max_held
  // items wait already: the item's files stay written, not committed (its
  // `committed` hears ""), and the item is left as it was, so its writer
  // can keep the files for its next commit.
  Result<void> submit(CommitItem&& item);
  // Commits what is held now, and blocks until everything queued is committed.
  void wait_idle();
  // Puts what is held on the queue now, without waiting (on the executor's
  // thread: at a stop, before the worker's last wait for the queue).
  void flush();
  // Commits what is queued and stops the queue, when it is its own.
  void stop();
  // Packs what the REPL's commits left loose, now, and returns when done
  // (tests, benchmarks: the gateway never waits for a pack).
  void pack_now();

  // Tests and `serve`'s log: how many commits were made.
  std::uint64_t commits() const { return commits_; }

 private:
  // Items that go into one commit. Each path keeps its first `before` (what
  // tells a save made before it) and last `after`: the texts in between are
  // let go as items join (many wait while commits lag under load). A long
  // log's texts are its tails; their heads are read from the file when the
  // commit makes that path's blob.
  struct Batch {
    std::vector<CommitItem> items;
    // path -> the item, and the change in it, with the path's last `after`
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> newest;
    void join(CommitItem item);
  };
  // Puts what is held on the queue: into the batch still waiting there, or
  // as a new one. Under mutex_.
  Result<void> flush_locked();
  void arm_locked(std::chrono::steady_clock::duration after);
  void commit(editgit::Repository& repo, Batch& batch);

  std::unique_ptr<editgit::CommitQueue> own_;
  editgit::CommitQueue& queue_;
  Options opt_;
  std::unique_ptr<boost::asio::steady_timer> timer_;  // null without an executor
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);  // its timer's waits hold it weakly
  bool armed_ = false;
  std::mutex mutex_;
  Batch held_;
  std::vector<std::string> open_;  // exchanges held open: a request without its reply
  std::chrono::steady_clock::time_point opened_at_;  // when the first of them was held
  std::chrono::steady_clock::time_point flushed_at_;
  std::chrono::steady_clock::duration gap_{};  // before the next commit: opt_.gap or the last one's bytes
  std::shared_ptr<Batch> last_;  // the batch of this committer's last item on the queue
  std::string ref_;              // the REPL ref: read on the queue's thread
  std::atomic<std::uint64_t> commits_{0};
  // Started on the queue's thread at the first commit; stopped (a merge
  // under way given up) when the committer goes, after the queue's last commit.
  std::unique_ptr<editgit::PackThread> packing_;
  bool packing_failed_ = false;
};

}  // namespace repl
