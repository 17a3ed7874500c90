// The REPL's commits: requests and replies, a page's connect, notes, and
// the text of a log as saved, each a CommitItem put on the workspace's one
// commit queue (git/commit_queue.hpp), so git is never on the path that
// answers an agent and the REPL's commits and the edit runs' are made in
// the order their files were written. Each item is its own commit; when
// more than 8 of them wait together behind another commit, they go into one.
#pragma once

#include "git/commit_queue.hpp"
#include "git/repository.hpp"
#include "repl/chatlog.hpp"
#include "repl/error.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace repl {

struct CommitItem {
  std::vector<FileChange> files;
  editgit::Identity author;
  std::string summary;  // the message's first line
  std::vector<std::pair<std::string, std::string>> trailers;
  // Called on the commit queue's thread once the item is in a commit: with
  // its id, or "" when the commit failed, changed nothing, or was refused
  // (the queue was full).
  std::function<void(const std::string& id)> committed;
};

class Committer {
 public:
  // On the workspace's commit queue.
  explicit Committer(editgit::CommitQueue& queue) : queue_(queue) {}
  // On a commit queue of its own, opened on the repository of `root`.
  static Result<std::unique_ptr<Committer>> start(const std::string& root);
  // Waits for the items it queued (their work refers to it).
  ~Committer();
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;

  // Error::commit_queue_full when the queue is at its bound: the item's
  // files stay written, not committed (its `committed` hears ""), and the
  // item is left as it was, so its writer can keep the files for its next
  // commit. Taken (moved from) otherwise.
  Result<void> submit(CommitItem&& item);
  // Blocks until everything on the queue so far is committed.
  void wait_idle();
  // Commits what is queued and stops the queue, when it is its own.
  void stop();

  // Tests and `serve`'s log: how many commits were made.
  std::uint64_t commits() const { return commits_; }

 private:
  // Items that wait together. Past group_above items a batch is one commit,
  // which takes each path's first `before` and last `after`: the texts in
  // between are let go as items join (each is a whole log, and thousands
  // wait while commits lag under load).
  struct Batch {
    std::vector<CommitItem> items;
    // path -> the item, and the change in it, with the path's last `after`
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> newest;
    std::size_t scanned = 0;  // items whose texts were looked at
    void join(CommitItem item);
  };
  void commit(editgit::Repository& repo, Batch batch);
  void commit_one(editgit::Repository& repo, std::vector<CommitItem*> items);

  std::unique_ptr<editgit::CommitQueue> own_;
  editgit::CommitQueue& queue_;
  std::mutex mutex_;  // submit's: one item joins the last batch at a time
  std::shared_ptr<Batch> last_;  // the batch of this committer's last item on the queue
  std::atomic<std::uint64_t> commits_{0};
};

}  // namespace repl
