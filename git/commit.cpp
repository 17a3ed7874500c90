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
#include <functional>
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
std::string submodule_of(git_tree* tree, const IndexImage& index, const std::string& path) {
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (const auto* e = index.find(dir); e && e->mode == GIT_FILEMODE_COMMIT) return dir;
    git_tree_entry* raw = nullptr;
    if (tree && git_tree_entry_bypath(&raw, tree, dir.c_str()) == 0) {
      TreeEntryPtr entry(raw);
      if (git_tree_entry_filemode(raw) == GIT_FILEMODE_COMMIT) return dir;
      if (git_tree_entry_type(raw) != GIT_OBJECT_TREE) return {};
    } else {
      git_error_clear();
      if (!index.find(dir)) return {};  // a new folder: nothing below is a submodule
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
  bool takes_earlier = false;  // Change::takes_earlier
  std::optional<git_oid> after;  // nullopt: deleted
  std::optional<struct stat> st; // the file as it is now
  bool readable = false;         // false: a reader of the change gave nothing
  std::function<std::optional<std::string>()> read_before;  // Change::read_before
  struct timespec looked_at{};    // when `st` was taken, by the file system's (coarse) clock
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

// core.filemode: whether the executable bit on disk says what git should record.
bool trusts_file_mode(git_repository* repo) {
  bool trust = true;
  git_config* cfg = nullptr;
  if (git_repository_config_snapshot(&cfg, repo) == 0) {
    ConfigPtr owned(cfg);
    int v = 1;
    if (git_config_get_bool(&v, cfg, "core.filemode") == 0) trust = v != 0;
  }
  git_error_clear();
  return trust;
}

// The mode a path is committed with: the file's executable bit, or the
// mode git has (`was`) when the bit is not to be trusted or the file is gone.
git_filemode_t mode_of(const Planned& p, const std::optional<Entry>& was, bool trust_mode) {
  if (was && (!trust_mode || !p.st)) return was->mode;
  if (p.st && (p.st->st_mode & S_IXUSR)) return GIT_FILEMODE_BLOB_EXECUTABLE;
  return GIT_FILEMODE_BLOB;
}

int signature(const Identity& who, SignaturePtr& out) {
  git_signature* s = nullptr;
  int rc = git_signature_now(&s, who.name.c_str(), who.email.c_str());
  out.reset(s);
  return rc;
}

// Why a changed path stays out of the commit, or "" when it goes in.
std::string left_out(git_repository* repo, git_tree* head, const IndexImage& index, const std::string& path) {
  // A file inside a submodule belongs to that repository: adding it here
  // would turn the submodule into a folder.
  if (std::string sub = submodule_of(head, index, path); !sub.empty())
    return "inside submodule " + sub + "; commit it in that repository";
  const bool tracked = entry_at(head, path) || index.find(path);
  if (!tracked) {
    int ignored = 0;
    if (git_ignore_path_is_ignored(&ignored, repo, path.c_str()) == 0 && ignored)
      return "untracked and ignored by .gitignore";
    git_error_clear();
  }
  return {};
}

// One change's blobs, which do not depend on where HEAD is: the new state
// stored, the earlier one only hashed (stored when a commit needs it).
// `workdir` "": a side ref's file, stored as given (no filters, no file on disk).
Result<Planned> plan_change(git_repository* repo, const Change& c, std::string path, const std::string& workdir) {
  Planned p;
  p.rel = c.path;
  p.path = std::move(path);
  p.takes_earlier = c.takes_earlier;
  if (!workdir.empty()) {
    git_filter_list* fl = nullptr;
    if (int rc = git_filter_list_load(&fl, repo, nullptr, p.path.c_str(), GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT);
        rc < 0)
      return failure(rc, "cannot load the filters (.gitattributes) for " + p.path);
    p.filters.reset(fl);
  }
  if (c.read_before || c.before) {
    // A reader's text is hashed and let go: read again when an attempt stores it.
    std::optional<std::string> read = c.read_before ? c.read_before() : std::nullopt;
    const std::string_view bytes = !c.read_before ? *c.before : read ? std::string_view(*read) : std::string_view();
    if (c.read_before && !read) {
      p.takes_earlier = true;
    } else {
      auto id = blob(repo, p, std::span<const std::string_view>(&bytes, 1), false);
      if (!id) return id.error();
      p.before = *id;
      if (c.read_before) p.read_before = c.read_before; else p.before_bytes = bytes;
    }
  }
  if (!c.deleted) {
    std::optional<std::string> read = c.read_after ? c.read_after() : std::nullopt;
    if (c.read_after && !read) return p;  // unreadable
    const std::string_view piece = read ? std::string_view(*read) : std::string_view();
    auto id = read ? blob(repo, p, std::span<const std::string_view>(&piece, 1), true) : blob(repo, p, c.after, true);
    if (!id) return id.error();
    p.after = *id;
  }
  p.readable = true;
  struct stat st;
  if (!workdir.empty() && ::lstat((workdir + p.path).c_str(), &st) == 0) {
    p.st = st;
    ::clock_gettime(CLOCK_REALTIME_COARSE, &p.looked_at);
  }
  return p;
}

// The tree updates of one attempt on `base` (HEAD's tree): the uncommitted
// earlier state of the paths we change, committed first as the user's so the
// agent's commit shows only the agent's change, and the change itself.
struct Updates {
  std::vector<git_tree_update> earlier, ours;
  std::vector<std::string> earlier_paths;
};

Result<Updates> updates_on(git_repository* repo, git_tree* base, std::vector<Planned>& plan, bool trust_mode) {
  Updates u;
  for (Planned& p : plan) {
    auto was = entry_at(base, p.path);
    // HEAD already holds the new content (a user committed the file in
    // between): there is no earlier state to record.
    if (was && p.after && git_oid_equal(&was->id, &*p.after)) continue;
    if (p.takes_earlier) continue;
    if (p.before && (!was || !git_oid_equal(&was->id, &*p.before))) {
      if (!p.before_stored) {
        std::optional<std::string> read = p.read_before ? p.read_before() : std::nullopt;
        const std::string_view bytes = read ? std::string_view(*read) : p.before_bytes;
        auto id = blob(repo, p, std::span<const std::string_view>(&bytes, 1), true);
        if (!id) return id.error();
        if (!git_oid_equal(&*id, &*p.before))
          return failure(GIT_ERROR, "the earlier text of " + p.path + " changed during its commit");
        p.before_stored = true;
      }
      u.earlier.push_back({GIT_TREE_UPDATE_UPSERT, *p.before, mode_of(p, was, trust_mode), p.path.c_str()});
    } else if (!p.before && was)
      u.earlier.push_back({GIT_TREE_UPDATE_REMOVE, {}, GIT_FILEMODE_UNREADABLE, p.path.c_str()});
    else
      continue;
    u.earlier_paths.push_back(p.rel);
  }
  for (const Planned& p : plan) {
    if (p.after)
      u.ours.push_back(
          {GIT_TREE_UPDATE_UPSERT, *p.after, mode_of(p, entry_at(base, p.path), trust_mode), p.path.c_str()});
    else if (entry_at(base, p.path) || p.before)
      u.ours.push_back({GIT_TREE_UPDATE_REMOVE, {}, GIT_FILEMODE_UNREADABLE, p.path.c_str()});
  }
  return u;
}

struct Signatures {
  SignaturePtr author, committer;
  SignaturePtr user;  // made when an attempt first has an earlier state to commit
};

// The commits of one attempt, each on top of the last, starting at HEAD.
class Chain {
 public:
  Chain(git_repository* repo, const git_signature* committer, Head& head)
      : repo_(repo), committer_(committer), tip_(head.tip), commit_(std::move(head.commit)) {}

  int add(const git_signature* by, const std::string& message, const git_oid& tree_id, git_oid& out) {
    git_tree* t = nullptr;
    if (int rc = git_tree_lookup(&t, repo_, &tree_id); rc < 0) return rc;
    TreePtr tree(t);
    const git_commit* parents[1] = {commit_.get()};
    int rc = git_commit_create(&out, repo_, nullptr, by, committer_, nullptr, message.c_str(), t, commit_ ? 1 : 0,
                               parents);
    if (rc < 0) return rc;
    git_commit* c = nullptr;
    if ((rc = git_commit_lookup(&c, repo_, &out)) < 0) return rc;
    commit_.reset(c);
    tree_ = std::move(tree);
    tip_ = out;
    return 0;
  }

  const std::optional<git_oid>& tip() const { return tip_; }
  git_tree* tree() const { return tree_.get(); }  // null until add() wrote one

 private:
  git_repository* repo_;
  const git_signature* committer_;
  std::optional<git_oid> tip_;
  CommitPtr commit_;
  TreePtr tree_;
};

// What one attempt wrote.
struct Written {
  std::optional<git_oid> tip;      // where the branch is to go
  std::optional<git_oid> earlier;  // the earlier-state commit
  std::optional<git_oid> id;       // our commit; nullopt: the tree did not change
};

// The earlier-state commit when there is one, then ours unless the tree
// stays as it is. Takes HEAD's commit out of `head`.
Result<Written> write_commits(git_repository* repo, const CommitRequest& req, Head& head, Updates& u,
                              const Signatures& sigs) {
  auto make_tree = [&](git_tree* from, std::vector<git_tree_update>& updates, git_oid& out) {
    return git_tree_create_updated(&out, repo, from, updates.size(), updates.data());
  };
  git_tree* base = head.tree.get();
  Chain chain(repo, sigs.committer.get(), head);
  Written w;
  git_oid tree_id;
  if (!u.earlier.empty()) {
    std::string message = req.earlier_message ? req.earlier_message(u.earlier_paths)
                                              : "Save uncommitted changes before an edit\n";
    git_oid id;
    if (int rc = make_tree(base, u.earlier, tree_id); rc < 0)
      return failure(rc, "cannot build the tree of the earlier state");
    if (int rc = chain.add(sigs.user.get(), message, tree_id, id); rc < 0)
      return failure(rc, "cannot create the earlier-state commit");
    w.earlier = id;
    base = chain.tree();
  }
  if (int rc = make_tree(base, u.ours, tree_id); rc < 0) return failure(rc, "cannot build the new tree");
  if (!base || !git_oid_equal(&tree_id, git_tree_id(base)) || req.allow_empty) {
    git_oid id;
    if (int rc = chain.add(sigs.author.get(), req.message, tree_id, id); rc < 0)
      return failure(rc, "cannot create the commit");
    w.id = id;
  }
  w.tip = chain.tip();
  return w;
}

// One attempt on `head`: the trees and commits (the earlier state first
// when needed, signed by `user`).
Result<Written> attempt_on(git_repository* repo, const CommitRequest& req, Head& head, std::vector<Planned>& plan,
                           bool trust_mode, Signatures& sigs, const std::function<Identity()>& user) {
  auto updates = updates_on(repo, head.tree.get(), plan, trust_mode);
  if (!updates) return updates.error();
  if (!updates->earlier.empty() && !sigs.user) {
    const Identity who = user();
    if (int rc = signature(who, sigs.user); rc < 0) return failure(rc, "invalid user identity '" + who.name + "'");
  }
  return write_commits(repo, req, head, *updates, sigs);
}

// Moves `head.ref` from HEAD's tip to `to` only if it is still there
// (compare-and-swap), waiting while another git process holds its lock.
// editgate's own lock records the ref's lock while this process may hold it.
int move_branch(git_repository* repo, CommitLock& own, const std::string& lock_path, const Head& head,
                const git_oid& to, const std::string& summary, Clock::time_point deadline) {
  const std::string log = std::string(head.tip ? "commit: " : "commit (initial): ") + summary;
  git_reference* moved = nullptr;
  int rc = retry_locked(deadline, [&] {
    own.holding(lock_path);  // again on every try: the record is newer than a lock someone else made
    if (head.tip)
      return git_reference_create_matching(&moved, repo, head.ref.c_str(), &to, 1, &*head.tip, log.c_str());
    return git_reference_create(&moved, repo, head.ref.c_str(), &to, 0, log.c_str());
  });
  own.released();
  RefPtr owned(moved);
  return rc;
}

// HEAD moved: a random pause that grows with the attempts, so writers racing
// in lockstep fall out of step instead of failing together.
void back_off(int attempt) {
  thread_local std::minstd_rand rng{std::random_device{}()};
  const int ceiling = 1 << std::min(attempt, 5);
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, ceiling * 1000)(rng)));
}

// What a move of `ref` that answered `rc` means: true to rebuild on its new
// tip and try again (it moved meanwhile).
Result<bool> retry_move(int rc, int attempt, const Options& opt, const std::string& ref) {
  if ((rc == GIT_EMODIFIED || rc == GIT_EEXISTS) && attempt < opt.max_attempts) {
    git_error_clear();
    back_off(attempt);
    return true;
  }
  if (rc == GIT_ELOCKED)
    return Failure{Error::locked, (ref.starts_with("refs/heads/") ? "the branch " : "") + ref +
                                      " is locked by another git process (waited " +
                                      std::to_string(opt.lock_timeout.count()) + " ms)"};
  if (rc < 0) return failure(rc, "cannot move " + ref);
  return false;
}

bool not_before(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

// The index entries of our paths, and only those, to match the new commit
// and the files on disk, so `git status` is clean for them. `head` is the
// tree the last attempt built on.
std::vector<LaterEdit> index_edits(const std::vector<Planned>& plan, git_tree* head, bool trust_mode) {
  std::vector<LaterEdit> edits;
  for (const Planned& p : plan) {
    if (!p.after || !p.st) {
      edits.push_back({{p.path, std::nullopt}, p.after});
      continue;
    }
    // Written in the tick it was looked at: a write later in that tick would leave the same stat data.
    const bool racy = not_before(p.st->st_mtim, p.looked_at) || not_before(p.st->st_ctim, p.looked_at);
    edits.push_back({{p.path, index_entry(p, mode_of(p, entry_at(head, p.path), trust_mode))}, p.after, racy});
  }
  return edits;
}

}  // namespace

Result<CommitResult> Repository::commit(const CommitRequest& req) {
  if (!req.ref.empty()) return commit_side(req);
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

  auto index = index_->current();
  if (!index) return index.error();
  const bool trust_mode = trusts_file_mode(repo_);
  std::vector<Planned> plan;
  for (const Change& c : req.changes) {
    if (std::string why = left_out(repo_, head->tree.get(), **index, prefix_ + c.path); !why.empty()) {
      result.not_committed.push_back({c.path, std::move(why)});
      continue;
    }
    auto p = plan_change(repo_, c, prefix_ + c.path, workdir_);
    if (!p) return p.error();
    if (!p->readable) result.not_committed.push_back({c.path, "its text changed before its commit could read it"});
    else plan.push_back(std::move(*p));
  }
  if (plan.empty()) return result;

  Signatures sigs;
  if (int rc = signature(req.author, sigs.author); rc < 0)
    return failure(rc, "invalid author '" + req.author.name + "'");
  if (int rc = signature(opt_.committer, sigs.committer); rc < 0) return failure(rc, "invalid committer");

  for (int attempt = 1;; ++attempt) {
    if (attempt > 1) {
      head = read_head(repo_);
      if (!head) return head.error();
    }
    auto written = attempt_on(repo_, req, *head, plan, trust_mode, sigs, [this] { return user(); });
    if (!written) return written.error();
    if (!written->tip || (head->tip && git_oid_equal(&*written->tip, &*head->tip))) break;  // nothing new to point at

    if (opt_.before_update) opt_.before_update();
    const std::string summary = written->id ? req.message.substr(0, req.message.find('\n')) : "editgate: earlier state";
    int rc = move_branch(repo_, *own, ref_lock(head->ref), *head, *written->tip, summary, deadline);
    auto again = retry_move(rc, attempt, opt_, head->ref);
    if (!again) return again.error();
    if (*again) continue;  // rebuilt on top of the new HEAD
    if (written->id) result.id = hex(*written->id);
    if (written->earlier) result.earlier = hex(*written->earlier);
    break;
  }

  for (const Planned& p : plan) result.paths.push_back(p.rel);
  index_->defer(index_edits(plan, head->tree.get(), trust_mode));
  if (opt_.defer_index && index_->deferred() < kMaxDeferredEdits) return result;
  if (auto updated = write_index(*own, deadline, {}); !updated)
    result.warning = "the commit landed, but the index was not updated (git status may show the committed files "
                     "as changed): " + updated.error().message;
  return result;
}

// A side ref moves only under editgate's own lock and the ref's: git's
// index, the branch and an operation in progress are the user's.
Result<CommitResult> Repository::commit_side(const CommitRequest& req) {
  const auto deadline = Clock::now() + opt_.lock_timeout;
  CommitResult result;
  auto own = CommitLock::take(gitdir_, commondir_, deadline);
  if (!own) return own.error();
  std::vector<Planned> plan;
  for (const Change& c : req.changes) {
    auto p = plan_change(repo_, c, c.path, "");
    if (!p) return p.error();
    if (!p->readable) result.not_committed.push_back({c.path, "its text changed before its commit could read it"});
    else plan.push_back(std::move(*p));
  }
  if (plan.empty() && !req.allow_empty) return result;
  Signatures sigs;
  if (int rc = signature(req.author, sigs.author); rc < 0)
    return failure(rc, "invalid author '" + req.author.name + "'");
  if (int rc = signature(opt_.committer, sigs.committer); rc < 0) return failure(rc, "invalid committer");
  for (int attempt = 1;; ++attempt) {
    auto head = read_ref(repo_, req.ref);
    if (!head) return head.error();
    auto written = attempt_on(repo_, req, *head, plan, true, sigs, [this] { return user(); });
    if (!written) return written.error();
    if (!written->tip || (head->tip && git_oid_equal(&*written->tip, &*head->tip))) break;
    int rc = move_branch(repo_, *own, ref_lock(req.ref), *head, *written->tip, "", deadline);
    auto again = retry_move(rc, attempt, opt_, req.ref);
    if (!again) return again.error();
    if (*again) continue;
    if (written->id) result.id = hex(*written->id);
    if (written->earlier) result.earlier = hex(*written->earlier);
    break;
  }
  for (const Planned& p : plan) result.paths.push_back(p.rel);
  return result;
}

Result<std::optional<std::string>> Repository::untrack(const std::vector<std::string>& paths,
                                                       const Identity& author, const std::string& message) {
  const auto deadline = Clock::now() + opt_.lock_timeout;
  if (auto ready = ready_to_commit(); !ready) return ready.error();
  // A bisect (which ready_to_commit lets edits through) would take a commit
  // on its detached HEAD for one of the user's.
  if (git_repository_state(repo_) != GIT_REPOSITORY_STATE_NONE)
    return Failure{Error::conflict, "the repository is in the middle of an operation (a bisect?)"};
  auto own = CommitLock::take(gitdir_, commondir_, deadline);
  if (!own) return own.error();
  SignaturePtr by, committer;
  if (int rc = signature(author, by); rc < 0) return failure(rc, "invalid author '" + author.name + "'");
  if (int rc = signature(opt_.committer, committer); rc < 0) return failure(rc, "invalid committer");
  for (int attempt = 1;; ++attempt) {
    auto head = read_head(repo_);
    if (!head) return head.error();
    if (!head->tip || !head->ref.starts_with("refs/heads/")) return std::optional<std::string>();
    if (auto free = wait_for_git_locks(deadline, head->ref); !free) return free.error();
    std::vector<std::string> gone;
    for (const std::string& p : paths)
      if (entry_bypath(head->tree.get(), prefix_ + p)) gone.push_back(prefix_ + p);
    if (gone.empty()) return std::optional<std::string>();
    std::vector<git_tree_update> updates;
    for (const std::string& g : gone) updates.push_back({GIT_TREE_UPDATE_REMOVE, {}, GIT_FILEMODE_UNREADABLE, g.c_str()});
    git_oid tree_id, id;
    if (int rc = git_tree_create_updated(&tree_id, repo_, head->tree.get(), updates.size(), updates.data()); rc < 0)
      return failure(rc, "cannot build the tree without " + gone.front());
    Chain chain(repo_, committer.get(), *head);
    if (int rc = chain.add(by.get(), message, tree_id, id); rc < 0) return failure(rc, "cannot create the commit");
    const std::string summary = message.substr(0, message.find('\n'));
    int rc = move_branch(repo_, *own, ref_lock(head->ref), *head, id, summary, deadline);
    auto again = retry_move(rc, attempt, opt_, head->ref);
    if (!again) return again.error();
    if (*again) continue;
    // The files stay; git stops tracking them.
    std::vector<IndexEdit> edits;
    for (const std::string& g : gone) edits.push_back({g, std::nullopt});
    if (auto updated = write_index(*own, deadline, edits); !updated) return updated.error();
    return std::optional<std::string>(hex(id));
  }
}

}  // namespace editgit
