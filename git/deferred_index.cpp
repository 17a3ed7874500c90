// The index entries a commit deferred (Options::defer_index), written into
// the index file in one update, and only those HEAD still holds.
#include "git/commit_lock.hpp"
#include "git/handle.hpp"
#include "git/index.hpp"
#include "git/repository.hpp"

namespace editgit {

using namespace detail;

namespace {

// A deferred edit still holds while HEAD's tree has at its path what the
// commit put there: after a checkout or reset of the user's it would stage
// a change nobody made.
std::function<bool(const LaterEdit&)> still_in(git_tree* head) {
  return [head](const LaterEdit& e) {
    TreeEntryPtr now = head ? entry_bypath(head, e.edit.path) : TreeEntryPtr();
    git_error_clear();
    if (now && git_tree_entry_type(now.get()) != GIT_OBJECT_BLOB) now.reset();
    if (!now || !e.in_head) return !now && !e.in_head;
    return git_oid_equal(git_tree_entry_id(now.get()), &*e.in_head) != 0;
  };
}

}  // namespace

// While git is in the middle of an operation the index is the operation's:
// the deferred edits are dropped.
Result<void> Repository::write_index(CommitLock& own, std::chrono::steady_clock::time_point deadline,
                                     const std::vector<IndexEdit>& edits) {
  auto head = read_head(repo_);
  if (!head) return head.error();
  const bool busy = git_repository_state(repo_) != GIT_REPOSITORY_STATE_NONE;
  own.holding(index_->lock_path());
  auto updated = index_->update(deadline, edits,
                                busy ? std::function<bool(const LaterEdit&)>([](const LaterEdit&) { return false; })
                                     : still_in(head->tree.get()));
  own.released();
  return updated;
}

Result<void> Repository::settle_index() {
  if (!index_ || index_->deferred() == 0) return {};
  const auto deadline = std::chrono::steady_clock::now() + opt_.lock_timeout;
  auto own = CommitLock::take(gitdir_, commondir_, deadline);
  if (!own) return own.error();
  return write_index(*own, deadline, {});
}

std::size_t Repository::index_deferred() const { return index_ ? index_->deferred() : 0; }

}  // namespace editgit
