// Repository::commit: blobs, then trees from HEAD's tree with only our paths
// replaced, then the commits, then a compare-and-swap of the branch, then the
// index entries of our paths. HEAD moving in between means: rebuild the trees
// on the new HEAD and try again.
#include "git/commit_lock.hpp"
#include "git/handle.hpp"
#include "git/index.hpp"
#include "git/repository.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <span>
#include <thread>

namespace editgit {

using namespace detail;

namespace {

using Clock = std::chrono::steady_clock;

// Runs `step` until it stops answering GIT_ELOCKED or the deadline passes.
template <class Step>
int retry_locked(Clock::time_point deadline, Step step) {
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    int rc = step();
    if (rc != GIT_ELOCKED || Clock::now() >= deadline) return rc;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

struct Entry {
  git_oid id;
  git_filemode_t mode;
};

std::optional<Entry> entry_at(git_tree* tree, const std::string& path) {
  if (!tree) return std::nullopt;
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree, path.c_str()) < 0) {
    git_error_clear();
    return std::nullopt;
  }
  TreeEntryPtr e(raw);
  if (git_tree_entry_type(raw) != GIT_OBJECT_BLOB) return std::nullopt;
  return Entry{*git_tree_entry_id(raw), git_tree_entry_filemode(raw)};
}

// The folder of `path` that is a submodule (a gitlink in HEAD or the index),
// or "".
std::string submodule_of(git_tree* tree, git_index* index, const std::string& path) {
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (const git_index_entry* e = git_index_get_bypath(index, dir.c_str(), 0); e && e->mode == GIT_FILEMODE_COMMIT)
      return dir;
    git_tree_entry* raw = nullptr;
    if (tree && git_tree_entry_bypath(&raw, tree, dir.c_str()) == 0) {
      TreeEntryPtr entry(raw);
      if (git_tree_entry_filemode(raw) == GIT_FILEMODE_COMMIT) return dir;
      if (git_tree_entry_type(raw) != GIT_OBJECT_TREE) return {};
    } else {
      git_error_clear();
      if (!git_index_get_bypath(index, dir.c_str(), 0)) return {};  // a new folder: nothing below is a submodule
    }
  }
  return {};
}

// What one changed path needs, computed once for all attempts.
struct Planned {
  std::string path;      // relative to the work tree
  std::string rel;       // relative to the workspace root, as the caller named it
  FilterListPtr filters;         // clean filters for the path; null: none
  std::string_view before_bytes;
  std::optional<git_oid> before;
  bool before_stored = false;
  std::optional<git_oid> after;  // nullopt: deleted
  std::optional<struct stat> st; // the file as it is now
};


// A blob's id through the clean filters `git add` would run (.gitattributes);
// stored only when `store` is set. With no filter, the pieces are streamed in.
Result<git_oid> blob(git_repository* repo, const Planned& p, std::span<const std::string_view> pieces, bool store) {
  git_oid id;
  if (!p.filters) {
    if (!store) {
      std::string whole;
      for (std::string_view piece : pieces) whole += piece;
      if (int rc = git_odb_hash(&id, whole.data(), whole.size(), GIT_OBJECT_BLOB); rc < 0)
        return failure(rc, "cannot hash " + p.path);
      return id;
    }
    git_odb* raw_odb = nullptr;
    if (int rc = git_repository_odb(&raw_odb, repo); rc < 0) return failure(rc, "cannot open the object store");
    OdbPtr odb(raw_odb);
    std::size_t size = 0;
    for (std::string_view piece : pieces) size += piece.size();
    git_odb_stream* stream = nullptr;
    if (int rc = git_odb_open_wstream(&stream, odb.get(), size, GIT_OBJECT_BLOB); rc < 0)
      return failure(rc, "cannot write the blob of " + p.path);
    Handle<git_odb_stream, git_odb_stream_free> owned(stream);
    for (std::string_view piece : pieces)
      if (int rc = git_odb_stream_write(stream, piece.data(), piece.size()); rc < 0)
        return failure(rc, "cannot write the blob of " + p.path);
    if (int rc = git_odb_stream_finalize_write(&id, stream); rc < 0)
      return failure(rc, "cannot write the blob of " + p.path);
    return id;
  }
  std::string whole;
  for (std::string_view piece : pieces) whole += piece;
  git_buf out = GIT_BUF_INIT;
  int rc = git_filter_list_apply_to_buffer(&out, p.filters.get(), whole.data(), whole.size());
  if (rc == 0)
    rc = store ? git_blob_create_from_buffer(&id, repo, out.ptr, out.size)
               : git_odb_hash(&id, out.ptr, out.size, GIT_OBJECT_BLOB);
  git_buf_dispose(&out);
  if (rc < 0) return failure(rc, "cannot filter and store the blob of " + p.path);
  return id;
}

// The index entry of a committed file, with the stat data git compares.
git_index_entry index_entry(const Planned& p, git_filemode_t mode) {
  git_index_entry e{};
  const struct stat& st = *p.st;
  e.ctime = {static_cast<int32_t>(st.st_ctim.tv_sec), static_cast<uint32_t>(st.st_ctim.tv_nsec)};
  e.mtime = {static_cast<int32_t>(st.st_mtim.tv_sec), static_cast<uint32_t>(st.st_mtim.tv_nsec)};
  e.dev = static_cast<uint32_t>(st.st_dev);
  e.ino = static_cast<uint32_t>(st.st_ino);
  e.mode = mode;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.file_size = static_cast<uint32_t>(st.st_size);
  e.id = *p.after;
  e.path = p.path.c_str();
  return e;
}

}  // namespace

Result<CommitResult> Repository::commit(const CommitRequest& req) {
  const auto deadline = Clock::now() + opt_.lock_timeout;
  CommitResult result;
  if (auto ready = ready_to_commit(); !ready) return ready.error();
  // editgate's own lock, for the whole commit: it records the git locks held
  // below, so that if this process is killed holding one, the next editgate
  // knows the lock is a dead editgate's and removes it.
  auto own = CommitLock::take(gitdir_, commondir_, deadline);
  if (!own) return own.error();

  auto head = read_head(repo_);
  if (!head) return head.error();
  // Another git process in the middle of something: wait for it, as git would
  // have to, rather than fail a moment later on its lock; then read what it left.
  if (auto free = wait_for_git_locks(deadline, head->ref); !free) return free.error();
  head = read_head(repo_);
  if (!head) return head.error();

  auto current_index = index_->current();
  if (!current_index) return current_index.error();
  git_index* const index = *current_index;

  bool trust_mode = true;  // core.filemode
  {
    git_config* cfg = nullptr;
    if (git_repository_config_snapshot(&cfg, repo_) == 0) {
      ConfigPtr owned(cfg);
      int v = 1;
      if (git_config_get_bool(&v, cfg, "core.filemode") == 0) trust_mode = v != 0;
    }
    git_error_clear();
  }

  // Blobs first: they do not depend on where HEAD is. The earlier state is
  // only hashed; it is stored when a commit needs it.
  std::vector<Planned> plan;
  for (const Change& c : req.changes) {
    Planned p;
    p.rel = c.path;
    p.path = prefix_ + c.path;
    // A file inside a submodule belongs to that repository: adding it here
    // would turn the submodule into a folder.
    if (std::string sub = submodule_of(head->tree.get(), index, p.path); !sub.empty()) {
      result.not_committed.push_back({c.path, "inside submodule " + sub + "; commit it in that repository"});
      continue;
    }
    const bool tracked = entry_at(head->tree.get(), p.path) || git_index_get_bypath(index, p.path.c_str(), 0);
    if (!tracked) {
      int ignored = 0;
      if (git_ignore_path_is_ignored(&ignored, repo_, p.path.c_str()) == 0 && ignored) {
        result.not_committed.push_back({c.path, "untracked and ignored by .gitignore"});
        continue;
      }
      git_error_clear();
    }
    git_filter_list* fl = nullptr;
    if (int rc = git_filter_list_load(&fl, repo_, nullptr, p.path.c_str(), GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT); rc < 0)
      return failure(rc, "cannot load the filters (.gitattributes) for " + p.path);
    p.filters.reset(fl);
    if (c.before) {
      p.before_bytes = *c.before;
      auto id = blob(repo_, p, std::span<const std::string_view>(&p.before_bytes, 1), false);
      if (!id) return id.error();
      p.before = *id;
    }
    if (!c.deleted) {
      auto id = blob(repo_, p, c.after, true);
      if (!id) return id.error();
      p.after = *id;
    }
    struct stat st;
    if (::lstat((workdir_ + p.path).c_str(), &st) == 0) p.st = st;
    plan.push_back(std::move(p));
  }
  if (plan.empty()) return result;

  auto mode_of = [&](const Planned& p, const std::optional<Entry>& was) {
    if (was && (!trust_mode || !p.st)) return was->mode;
    if (p.st && (p.st->st_mode & S_IXUSR)) return GIT_FILEMODE_BLOB_EXECUTABLE;
    return GIT_FILEMODE_BLOB;
  };
  auto signature = [](const Identity& who, SignaturePtr& out) {
    git_signature* s = nullptr;
    int rc = git_signature_now(&s, who.name.c_str(), who.email.c_str());
    out.reset(s);
    return rc;
  };
  SignaturePtr author, committer, user;
  if (int rc = signature(req.author, author); rc < 0) return failure(rc, "invalid author '" + req.author.name + "'");
  if (int rc = signature(opt_.committer, committer); rc < 0) return failure(rc, "invalid committer");

  for (int attempt = 1;; ++attempt) {
    if (attempt > 1) {
      head = read_head(repo_);
      if (!head) return head.error();
    }
    git_tree* base = head->tree.get();

    // Uncommitted earlier state of the paths we change: committed first, as
    // the user's, so the agent's commit shows only the agent's change.
    std::vector<git_tree_update> earlier, ours;
    std::vector<std::string> earlier_paths;
    for (Planned& p : plan) {
      auto was = entry_at(base, p.path);
      // HEAD already holds the new content (a user committed the file in
      // between): there is no earlier state to record.
      if (was && p.after && git_oid_equal(&was->id, &*p.after)) continue;
      if (p.before && (!was || !git_oid_equal(&was->id, &*p.before))) {
        if (!p.before_stored) {
          auto id = blob(repo_, p, std::span<const std::string_view>(&p.before_bytes, 1), true);
          if (!id) return id.error();
          p.before_stored = true;
        }
        earlier.push_back({GIT_TREE_UPDATE_UPSERT, *p.before, mode_of(p, was), p.path.c_str()});
      } else if (!p.before && was)
        earlier.push_back({GIT_TREE_UPDATE_REMOVE, {}, GIT_FILEMODE_UNREADABLE, p.path.c_str()});
      else
        continue;
      earlier_paths.push_back(p.rel);
    }
    for (const Planned& p : plan) {
      if (p.after)
        ours.push_back({GIT_TREE_UPDATE_UPSERT, *p.after, mode_of(p, entry_at(base, p.path)), p.path.c_str()});
      else if (entry_at(base, p.path) || p.before)
        ours.push_back({GIT_TREE_UPDATE_REMOVE, {}, GIT_FILEMODE_UNREADABLE, p.path.c_str()});
    }

    std::optional<git_oid> parent = head->tip;
    CommitPtr parent_commit = std::move(head->commit);
    TreePtr parent_tree;
    std::optional<git_oid> earlier_id;
    auto make_tree = [&](git_tree* from, std::vector<git_tree_update>& updates, git_oid& out) {
      return git_tree_create_updated(&out, repo_, from, updates.size(), updates.data());
    };
    auto make_commit = [&](const git_signature* by, const std::string& message, const git_oid& tree_id,
                           git_oid& out) -> int {
      git_tree* t = nullptr;
      if (int rc = git_tree_lookup(&t, repo_, &tree_id); rc < 0) return rc;
      TreePtr tree(t);
      const git_commit* parents[1] = {parent_commit.get()};
      int rc = git_commit_create(&out, repo_, nullptr, by, committer.get(), nullptr, message.c_str(), t,
                                 parent_commit ? 1 : 0, parents);
      if (rc < 0) return rc;
      git_commit* c = nullptr;
      if ((rc = git_commit_lookup(&c, repo_, &out)) < 0) return rc;
      parent_commit.reset(c);
      parent_tree = std::move(tree);
      parent = out;
      return 0;
    };

    git_oid tree_id;
    if (!earlier.empty()) {
      if (!user) {
        const Identity who = this->user();
        if (int rc = signature(who, user); rc < 0) return failure(rc, "invalid user identity '" + who.name + "'");
      }
      std::string message = req.earlier_message ? req.earlier_message(earlier_paths)
                                                : "Save uncommitted changes before an edit\n";
      git_oid id;
      if (int rc = make_tree(base, earlier, tree_id); rc < 0)
        return failure(rc, "cannot build the tree of the earlier state");
      if (int rc = make_commit(user.get(), message, tree_id, id); rc < 0)
        return failure(rc, "cannot create the earlier-state commit");
      earlier_id = id;
      base = parent_tree.get();
    }
    if (int rc = make_tree(base, ours, tree_id); rc < 0) return failure(rc, "cannot build the new tree");
    std::optional<git_oid> new_id;
    if (!base || !git_oid_equal(&tree_id, git_tree_id(base))) {
      git_oid id;
      if (int rc = make_commit(author.get(), req.message, tree_id, id); rc < 0)
        return failure(rc, "cannot create the commit");
      new_id = id;
    }
    if (!parent || (head->tip && git_oid_equal(&*parent, &*head->tip))) break;  // nothing new to point at

    if (opt_.before_update) opt_.before_update();
    const std::string summary = new_id ? req.message.substr(0, req.message.find('\n')) : "editgate: earlier state";
    const std::string log = std::string(head->tip ? "commit: " : "commit (initial): ") + summary;
    git_reference* moved = nullptr;
    const std::string ref_lock_path = ref_lock(head->ref);
    int rc = retry_locked(deadline, [&] {
      own->holding(ref_lock_path);  // again on every try: the record is newer than a lock someone else made
      if (head->tip)
        return git_reference_create_matching(&moved, repo_, head->ref.c_str(), &*parent, 1, &*head->tip, log.c_str());
      return git_reference_create(&moved, repo_, head->ref.c_str(), &*parent, 0, log.c_str());
    });
    own->released();
    RefPtr owned(moved);
    if ((rc == GIT_EMODIFIED || rc == GIT_EEXISTS) && attempt < opt_.max_attempts) {
      git_error_clear();
      // HEAD moved: rebuild on top of it, after a random pause that grows,
      // so writers racing in lockstep fall out of step instead of failing together.
      thread_local std::minstd_rand rng{std::random_device{}()};
      const int ceiling = 1 << std::min(attempt, 5);
      std::this_thread::sleep_for(std::chrono::microseconds(
          std::uniform_int_distribution<int>(0, ceiling * 1000)(rng)));
      continue;
    }
    if (rc == GIT_ELOCKED)
      return Failure{Error::locked, "the branch " + head->ref + " is locked by another git process (waited " +
                                        std::to_string(opt_.lock_timeout.count()) + " ms)"};
    if (rc < 0) return failure(rc, "cannot move " + head->ref);
    if (new_id) result.id = hex(*new_id);
    if (earlier_id) result.earlier = hex(*earlier_id);
    break;
  }

  // The index entries of our paths, and only those, now match the new commit
  // and the files on disk, so `git status` is clean for them.
  for (const Planned& p : plan) result.paths.push_back(p.rel);
  own->holding(index_->lock_path());
  auto updated = index_->update(deadline, [&](git_index* idx) {
    for (const Planned& p : plan) {
      if (!p.after || !p.st) {
        if (int rc = git_index_remove(idx, p.path.c_str(), 0); rc < 0 && rc != GIT_ENOTFOUND) return rc;
        continue;
      }
      const git_index_entry e = index_entry(p, mode_of(p, entry_at(head->tree.get(), p.path)));
      if (int rc = git_index_add(idx, &e); rc < 0) return rc;
    }
    return 0;
  });
  own->released();
  if (!updated)
    result.warning = "the commit landed, but the index was not updated (git status may show the committed files "
                     "as changed): " + updated.error().message;
  return result;
}

}  // namespace editgit
