// Private to git/: owning handles for libgit2 objects and the mapping of
// libgit2's error codes to named ones.
#pragma once

#include "git/error.hpp"

#include <git2.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace editgit::detail {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
template <class T, void (*Free)(T*)>
using Handle = std::unique_ptr<T, Deleter<T, Free>>;

using CommitPtr = Handle<git_commit, git_commit_free>;
using TreePtr = Handle<git_tree, git_tree_free>;
using TreeEntryPtr = Handle<git_tree_entry, git_tree_entry_free>;
using RefPtr = Handle<git_reference, git_reference_free>;
using OdbPtr = Handle<git_odb, git_odb_free>;
using SignaturePtr = Handle<git_signature, git_signature_free>;
using RevwalkPtr = Handle<git_revwalk, git_revwalk_free>;
using DiffPtr = Handle<git_diff, git_diff_free>;
using BlobPtr = Handle<git_blob, git_blob_free>;
using FilterListPtr = Handle<git_filter_list, git_filter_list_free>;
using ConfigPtr = Handle<git_config, git_config_free>;

// Starts libgit2 once per process (git/library_start.cpp), with its object cache holding trees of
// any size up to 4 MiB: libgit2's default caches only trees up to 4 KiB, so
// every path looked up in a folder of more than about 100 files would read
// and inflate that folder's tree again (a commit of 1,000 chat logs in one
// folder spent 72% of its time there). The cache holds 32 MiB in all.
void init_library();
// Starts libgit2's TLS and SSH as well, once per process: only a push needs
// them, and git_libgit2_init skips them here (git/library_start.cpp).
Result<void> init_network();

// A Failure naming what was being done, with libgit2's last message (read on
// this thread, where it was set).
Failure failure(int rc, std::string_view what);

std::string hex(const git_oid& id);

// HEAD as it is now: the ref a commit moves ("refs/heads/main", or "HEAD"
// when detached) and its tip, if the branch is born.
struct Head {
  std::string ref;
  std::optional<git_oid> tip;
  CommitPtr commit;
  TreePtr tree;
};
Result<Head> read_head(git_repository* repo);
// `path` without the '/' a folder's name may end in.
std::string trimmed_path(std::string path);
// The entry of `tree` at `path` (a folder's may end in '/'); null when there is none.
TreeEntryPtr entry_bypath(git_tree* tree, const std::string& path);

// A ref other than HEAD (the REPL's side ref), read the same way: no tip
// while it does not exist yet.
Result<Head> read_ref(git_repository* repo, const std::string& name);

// What commit `id` (40 hex digits) changed against its first parent (a
// root commit: against the empty tree), under `prefix` (the workspace root
// within the repository; "" for all), files over `max_size` bytes counted
// as binary (0: libgit2's default).
Result<DiffPtr> diff_with_parent(git_repository* repo, const std::string& id, const std::string& prefix,
                                 git_off_t max_size = 0);

}  // namespace editgit::detail
