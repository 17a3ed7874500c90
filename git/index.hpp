// Private to git/: the repository's index file. It is read into memory once,
// and again only when another program has replaced it; it is changed under
// git's own index.lock, held from that re-read to the rename that replaces
// the file, as git does, so a concurrent `git add` is never overwritten.
// The changed file is spliced from the one read (git/index_image.hpp).
// A commit's edits may wait (defer) and go into the file with the next
// update, so that several commits cost one write of it.
#pragma once

#include "git/error.hpp"
#include "git/index_image.hpp"

#include <time.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace editgit::detail {

// An edit that waits for the next update, with the blob the commit put at
// its path (nullopt: none): it is applied only while HEAD still has that.
// `racy`: the file may still change without its stat data changing (it was
// written in the same tick of the file system's clock as it was looked at),
// so the index file written with it gets that entry's mtime, and git and
// libgit2 compare the file's content for it (git's "racily clean" rule).
struct LaterEdit {
  IndexEdit edit;
  std::optional<git_oid> in_head;
  bool racy = false;
};

class IndexFile {
 public:
  explicit IndexFile(const std::string& gitdir);  // gitdir ends in '/'
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  // The index as it is on disk now, to look entries up.
  Result<const IndexImage*> current();

  // Keeps `edits` for the next update, in the order given.
  void defer(std::vector<LaterEdit> edits);
  // The edits deferred and not yet written.
  std::size_t deferred() const { return later_.size(); }

  // Takes index.lock (waiting until `deadline`), applies the deferred edits
  // that `still` accepts (all when it is empty), then `edits`, to the
  // current index and replaces the index file with the result. The lock is
  // released on every path; the deferred edits are gone on every path too
  // (a failure leaves them as a failed synchronous update would).
  Result<void> update(std::chrono::steady_clock::time_point deadline, const std::vector<IndexEdit>& edits,
                      const std::function<bool(const LaterEdit&)>& still = {});

  // Tests: runs after the new index is written, before it replaces the old.
  std::function<void()> before_rename;

  const std::string& lock_path() const { return lock_; }

 private:
  Result<void> sync();
  // `mtime`: the new file's, when it must be older than now (see LaterEdit).
  Result<void> write_and_replace(const std::optional<struct timespec>& mtime);

  std::string real_;   // .git/index
  std::string work_;   // the new index while it is written
  std::string lock_;   // .git/index.lock
  IndexImage image_;
  std::string next_;   // the bytes of the next index (its buffer is reused)
  std::string stamp_;  // identity of the file image_ was read from or written to
  std::vector<LaterEdit> later_;
  // The index file's mtime while it holds entries git must compare by
  // content (mtime not before it); nullopt when it holds none. Every file
  // written keeps its mtime at most this, so they stay so.
  std::optional<struct timespec> racy_floor_;
};

}  // namespace editgit::detail
