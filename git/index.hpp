// Private to git/: the repository's index file. It is read into memory once,
// and again only when another program has replaced it; it is changed under
// git's own index.lock, held from that re-read to the rename that replaces
// the file, as git does, so a concurrent `git add` is never overwritten.
#pragma once

#include "git/error.hpp"

#include <git2.h>

#include <chrono>
#include <functional>
#include <string>

namespace editgit::detail {

class IndexFile {
 public:
  explicit IndexFile(const std::string& gitdir);  // gitdir ends in '/'
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // The index as it is on disk now, to look entries up.
  Result<git_index*> current();

  // Takes index.lock (waiting until `deadline`), runs `edit` on the current
  // index and replaces the index file with the result. `edit` returns a
  // libgit2 code; the lock is released on every path.
  Result<void> update(std::chrono::steady_clock::time_point deadline, const std::function<int(git_index*)>& edit);

  const std::string& lock_path() const { return lock_; }

 private:
  Result<void> sync();

  std::string real_;   // .git/index
  std::string work_;   // a private hard link to it, which libgit2 reads and writes
  std::string lock_;   // .git/index.lock
  git_index* index_ = nullptr;
  std::string stamp_;  // identity of the file index_ was read from or written to
};

}  // namespace editgit::detail
