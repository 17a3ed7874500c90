// The REPL's one background committer: requests and replies are committed
// on a thread of their own, with a repository handle of its own, so git is
// never on the path that answers an agent. It commits each change on its
// own; when more than 8 wait, all that wait go into one commit.
#pragma once

#include "git/repository.hpp"
#include "repl/chatlog.hpp"
#include "repl/error.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace repl {

struct CommitItem {
  std::vector<FileChange> files;
  editgit::Identity author;
  std::string summary;  // the message's first line
  std::vector<std::pair<std::string, std::string>> trailers;
  // Called on the committer's thread once the item is in a commit: with its
  // id, or "" when the commit failed or changed nothing.
  std::function<void(const std::string& id)> committed;
};

class Committer {
 public:
  // Opens the repository of `root` for this thread's use.
  static Result<std::unique_ptr<Committer>> start(const std::string& root);
  ~Committer();

  void submit(CommitItem item);
  // Blocks until everything submitted so far is committed (before another
  // writer commits a file the committer may still hold).
  void wait_idle();
  // Commits what is queued, then stops the thread.
  void stop();

  // Tests and `serve`'s log: how many commits were made, how many failed.
  std::uint64_t commits() const;

 private:
  explicit Committer(editgit::Repository repo);
  void loop();
  void commit(std::vector<CommitItem> batch);

  editgit::Repository repo_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<CommitItem> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::uint64_t commits_ = 0;
  std::thread thread_;
};

}  // namespace repl
