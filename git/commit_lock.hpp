// Private to git/: editgate's own lock on a repository, held while it
// commits, and its record of the git locks (index.lock, a ref's .lock) it is
// holding at that moment. A killed editgate leaves such a lock behind, and
// git then refuses every commit; the record lets the next editgate tell that
// lock from one a live git process holds, and remove it.
#pragma once

#include "git/error.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace editgit::detail {

class CommitLock {
 public:
  using Clock = std::chrono::steady_clock;

  // flock(LOCK_EX) on <commondir>/editgate-commit.lock, waited for until
  // `deadline` (then Error::locked). On taking it, the git locks a dead
  // holder recorded are removed when they are still its own (see clear_stale),
  // and so are its temp files in `gitdir` (index.editgate-<pid>-<n>).
  static Result<CommitLock> take(const std::string& gitdir, const std::string& commondir, Clock::time_point deadline);

  CommitLock(CommitLock&& o) noexcept;
  CommitLock& operator=(CommitLock&&) = delete;
  CommitLock(const CommitLock&) = delete;
  ~CommitLock();

  // Records, before it is created, a git lock this process is about to hold.
  void holding(const std::string& lock_path);
  // The git locks recorded are released (renamed into place or removed).
  void released();

  // What the last take() removed, for messages and tests.
  const std::vector<std::string>& cleared() const { return cleared_; }

 private:
  CommitLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void write_record(const std::string& text);
  void clear_stale(const std::string& gitdir, const std::string& commondir);

  int fd_ = -1;
  std::string path_;
  std::vector<std::string> cleared_;
};

}  // namespace editgit::detail
