// Private to git/: the repository's index file. It is read into memory once,
// and again only when another program has replaced it; it is changed under
// git's own index.lock, held from that re-read to the rename that replaces
// the file, as git does, so a concurrent `git add` is never overwritten.
// The changed file is spliced from the one read (git/index_image.hpp).
#pragma once

#include "git/error.hpp"
#include "git/index_image.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace editgit::detail {

class IndexFile {
 public:
  explicit IndexFile(const std::string& gitdir);  // gitdir ends in '/'
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // The index as it is on disk now, to look entries up.
  Result<const IndexImage*> current();

  // Takes index.lock (waiting until `deadline`), applies `edits` to the
  // current index and replaces the index file with the result. The lock is
  // released on every path.
  Result<void> update(std::chrono::steady_clock::time_point deadline, const std::vector<IndexEdit>& edits);

  const std::string& lock_path() const { return lock_; }

 private:
  Result<void> sync();
  Result<void> write_and_replace();

  std::string real_;   // .git/index
  std::string work_;   // the new index while it is written
  std::string lock_;   // .git/index.lock
  IndexImage image_;
  std::string next_;   // the bytes of the next index (its buffer is reused)
  std::string stamp_;  // identity of the file image_ was read from or written to
};

}  // namespace editgit::detail
