// The workspace's git repository, through libgit2 and in-process. Commits
// hold exactly the paths editgate changed: HEAD's tree with those blobs
// replaced, so a user's unrelated staged or unstaged work never rides along.
// Paths are relative to the workspace root, which may be a subfolder of the
// repository's work tree. Not thread-safe: one Repository per thread.
#pragma once

#include "git/diff.hpp"
#include "git/error.hpp"
#include "git/push.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct git_repository;

namespace editgit {

namespace detail {
class CommitLock;
class IndexFile;
struct IndexEdit;
}

struct Identity {
  std::string name;
  std::string email;
};

// One file editgate changed. The views stay valid until commit() returns.
struct Change {
  std::string path;
  std::optional<std::string_view> before;  // what the edit started from; nullopt: no file
  std::vector<std::string_view> after;     // the new bytes, in pieces
  bool deleted = false;                    // the file is gone now
  // A `before` that differs from what the ref holds is part of this change,
  // not an earlier state committed first (a save that is itself the
  // request the commit records).
  bool takes_earlier = false;
  // A side ref's change may give a text as a reader instead (called once,
  // when the change is planned, on the commit's thread): its bytes are held
  // only while their blob is made, never all of a commit's texts at once.
  // nullopt from read_before: the earlier text is not known, and the change
  // takes whatever the ref holds (as takes_earlier); from read_after: the
  // path stays out of the commit (not_committed).
  std::function<std::optional<std::string>()> read_before = {}, read_after = {};
};

struct CommitRequest {
  std::vector<Change> changes;
  Identity author;
  std::string message;
  // Message of the commit that first records the uncommitted earlier state
  // of the listed paths (authored as the repository's user), when needed.
  std::function<std::string(const std::vector<std::string>& paths)> earlier_message;
  // "": the branch HEAD is on, with the workspace's paths stored as `git add`
  // would and the index updated. Else a side ref (the REPL's history):
  // `changes` name paths of that ref's own tree, stored as given (no
  // filters), and neither the branch, the index nor a merge in progress is
  // touched or waited for.
  std::string ref;
  // Commit even when the tree stays as it is: a record that changes no
  // file (a failed edit run on the REPL's ref).
  bool allow_empty = false;
};

// A written file the commit leaves out, and why.
struct NotCommitted {
  std::string path;
  std::string why;  // "ignored by .gitignore", "inside submodule lib/x"
};

struct CommitResult {
  std::optional<std::string> id;       // nullopt: the tree did not change
  std::optional<std::string> earlier;  // the earlier-state commit
  std::vector<std::string> paths;      // the paths the commit holds
  std::vector<NotCommitted> not_committed;  // untracked and ignored, or inside a submodule
  std::string warning;                 // the commit landed but something after it did not
};

struct Options {
  // How long a lock held by another git process (index.lock, a ref's
  // .lock) is waited for before the commit fails with Error::locked.
  std::chrono::milliseconds lock_timeout{5000};
  // Attempts when HEAD moves between reading it and moving it (with a
  // growing random pause between them: 0.4 s in all at most).
  int max_attempts = 16;
  Identity committer{"editgate", "editgate@editgate.invalid"};
  // Tests: runs just before the branch is moved, on every attempt.
  std::function<void()> before_update;
  // A commit onto the branch leaves its index entries for settle_index()
  // (or the next commit past kMaxDeferredEdits, or untrack) instead of
  // writing the index file itself: the commit queue's way of writing the
  // index once for the commits that come together. Until then `git status`
  // shows the committed files as changed (docs/decisions/git-history.md).
  bool defer_index = false;
  // Tests: runs after a new index file is written, before it replaces the old.
  std::function<void()> before_index_rename;
};

// Index edits a Repository keeps deferred at most: past them a commit writes the index.
inline constexpr std::size_t kMaxDeferredEdits = 4096;

struct CommitInfo {
  std::string id;
  std::vector<std::string> parents;
  Identity author;
  Identity committer;
  std::int64_t time = 0;        // seconds since the epoch
  int offset_minutes = 0;       // the committer's time zone
  std::string summary;          // the first line
  std::string message;          // the whole message
  std::vector<std::pair<std::string, std::string>> trailers;

  // The value of the first trailer called `key`, or "".
  std::string trailer(std::string_view key) const;
};

// A folder of HEAD whose files a side ref takes (Repository::take_from_head).
struct SideFolder {
  std::string folder;  // workspace-relative, "debug/"
  std::string at;      // its place in the side ref's tree: "" for the top, "archive"
  std::function<bool(std::string_view path)> keep;  // a file's path below the folder: taken?
};

struct Taken {
  std::string commit;               // the side ref's new commit; "" when nothing was taken
  std::vector<std::string> paths;   // the workspace paths HEAD has that `keep` accepted
};

// A path that differs between a commit and its first parent.
struct FileDiff {
  std::string path;
  std::optional<std::string> old_bytes;  // nullopt: the commit created it
  std::optional<std::string> new_bytes;  // nullopt: the commit deleted it
  std::string new_id;                    // blob id in the commit, "" when deleted
};

// The id git gives `bytes` as a blob, unfiltered: what a file held, named
// in a few bytes (the edit-run journal). Any thread; needs no repository.
std::string blob_id(std::string_view bytes);

class Repository {
 public:
  // Opens the repository holding `root` (searching upward as git does), or
  // creates one at `root` when there is none and `create` is set.
  static Result<Repository> open(const std::string& root, Options options = {}, bool create = true);

  Repository(Repository&& other) noexcept;
  Repository& operator=(Repository&& other) noexcept;
  Repository(const Repository&) = delete;
  Repository& operator=(const Repository&) = delete;
  ~Repository();

  const std::string& workdir() const { return workdir_; }
  // The repository's own folder (.git, or a linked worktree's), ending in '/':
  // where editgate keeps what it must find again after a crash.
  const std::string& gitdir() const { return gitdir_; }
  // The workspace root relative to the work tree, "" or ending in '/'.
  const std::string& prefix() const { return prefix_; }

  // Error::conflict when git is in the middle of a merge, rebase, revert,
  // cherry-pick or `git am`: a commit then would cut across the user's
  // operation. Error::locked when another git process holds index.lock or
  // the branch's lock past Options::lock_timeout; a lock that a killed
  // editgate left is removed first. Callers ask before writing files;
  // commit() asks again.
  Result<void> ready_to_commit() const;

  // Commits the changes on top of whatever HEAD is when the branch moves.
  Result<CommitResult> commit(const CommitRequest& request);
  // Writes the index entries the commits deferred (Options::defer_index), in
  // one write of the index, those whose path HEAD still has as committed;
  // none while git is in the middle of an operation. They are gone after
  // this whatever it returns. Error::locked past Options::lock_timeout.
  Result<void> settle_index();
  // The index edits deferred and not yet written.
  std::size_t index_deferred() const;

  // Commits reachable from `from` (HEAD when "", else a ref's full name or
  // a commit's 40-hex id), newest first, that `keep` accepts, at most
  // `limit` of them. An unborn HEAD or a missing ref has none.
  Result<std::vector<CommitInfo>> history(const std::function<bool(const CommitInfo&)>& keep, std::size_t limit,
                                          const std::string& from = "") const;

  // The commit `ref` (a full name) points at: "" when there is no such ref.
  Result<std::string> ref_tip(const std::string& ref) const;
  // `path` in the tree of `ref`'s tip, as stored: nullopt when the ref or
  // the file is missing. For side refs, whose files are stored unfiltered.
  Result<std::optional<std::string>> text_at(const std::string& ref, const std::string& path) const;
  // One commit on the side ref `ref` (made when missing) that takes the
  // files HEAD has in each `from` folder that its `keep` accepts to that
  // folder's place in the side ref's tree (where it holds another text, the
  // branch's wins). Error::conflict when the ref moved meanwhile.
  Result<Taken> take_from_head(const std::string& ref, const std::vector<SideFolder>& from, const Identity& author,
                               const std::string& message);
  // One commit on the branch that stops tracking `paths` (workspace-relative
  // files): they leave HEAD's tree and the index, the files stay on disk.
  // nullopt when HEAD tracks none of them or is not on a branch;
  // Error::conflict while git is in the middle of an operation (a bisect too).
  Result<std::optional<std::string>> untrack(const std::vector<std::string>& paths, const Identity& author,
                                             const std::string& message);

  // What the commit changed under the workspace root, against its first
  // parent; contents as they would be checked out.
  Result<std::vector<FileDiff>> diff(const std::string& id) const;

  // The commit a hex id or unique prefix of one names: Error::invalid when
  // it is not hex or names more than one commit, not_found when none.
  Result<CommitInfo> find_commit(const std::string& prefix) const;

  // What the commit `id` (40 hex) changed under the workspace root, as
  // hunks of lines, within `bounds` (git/diff.cpp).
  Result<CommitPatch> patch(const std::string& id, const DiffBounds& bounds) const;

  // Whether .gitignore (and info/exclude, core.excludesFile) ignores
  // `path`, workspace-relative, a folder when `folder`: the rules alone, as
  // `git check-ignore --no-index` reads them, tracked or not.
  Result<bool> ignored(const std::string& path, bool folder) const;

  // The blob id of `path` in HEAD's tree; "" when HEAD has no such file.
  Result<std::string> head_blob(const std::string& path) const;

  // Whether the object store holds `bytes` as a blob, hashed as `git add`
  // would store them as `path`: a state of the file git has had whole (a
  // commit's, a stash's, or one staged at some time).
  Result<bool> holds_blob(const std::string& path, std::string_view bytes) const;

  // `path` as HEAD has it, as a checkout would write it; nullopt when HEAD
  // has no such file (or no commit yet).
  Result<std::optional<std::string>> head_text(const std::string& path) const;

  // Adds `pattern` as a line of the repository's info/exclude unless one
  // already says it: for files editgate keeps in the work tree but never
  // commits (debug.md). Leaves the rest of the file as it was.
  Result<void> exclude(std::string_view pattern) const;

  // Pushes the branch HEAD is on to the same branch of `request.remote`,
  // as a fast-forward only (git/push.hpp). Error::rejected when the remote
  // refuses (its branch has commits this one lacks), unreachable when it
  // cannot be reached, not_found for an unknown remote or an unborn
  // branch, invalid for a detached HEAD. Blocks for the network's time:
  // never on a thread that serves anyone.
  Result<Pushed> push(const PushRequest& request);

  // The configured user (user.name/user.email, then GIT_AUTHOR_NAME/EMAIL,
  // then the login name).
  Identity user() const;

 private:
  Repository(git_repository* repo, std::string workdir, std::string prefix, Options options);

  // Waits until `deadline` while index.lock or the lock of the ref HEAD
  // moves exists, then Error::locked naming it.
  Result<void> wait_for_git_locks(std::chrono::steady_clock::time_point deadline, const std::string& ref) const;
  // Where git locks `ref` ("HEAD" or "refs/heads/...").
  std::string ref_lock(const std::string& ref) const;
  // commit() onto a side ref (CommitRequest::ref).
  Result<CommitResult> commit_side(const CommitRequest& request);
  // The deferred index edits, then `edits`, into the index file, under `own`.
  Result<void> write_index(detail::CommitLock& own, std::chrono::steady_clock::time_point deadline,
                           const std::vector<detail::IndexEdit>& edits);

  git_repository* repo_ = nullptr;
  std::string workdir_;  // ends in '/'
  std::string prefix_;
  std::string gitdir_;     // ends in '/'
  std::string commondir_;  // ends in '/'; refs live here (the same as gitdir_ but in a linked worktree)
  Options opt_;
  std::unique_ptr<detail::IndexFile> index_;
};

}  // namespace editgit
