#include "git/repository.hpp"

#include "git/handle.hpp"
#include "git/commit_lock.hpp"
#include "git/index.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>
#include <cstdlib>
#include <utility>

namespace editgit {

using namespace detail;

namespace {

std::optional<std::string> real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

}  // namespace

std::string CommitInfo::trailer(std::string_view key) const {
  for (const auto& [k, v] : trailers)
    if (k == key) return v;
  return {};
}

Result<Repository> Repository::open(const std::string& root, Options options, bool create) {
  init_library();

  auto abs = real_path(root);
  if (!abs) return Failure{Error::not_found, "the workspace root " + root + " does not exist"};
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, abs->c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND && create) rc = git_repository_init(&raw, abs->c_str(), 0);
  if (rc < 0) return failure(rc, "cannot open the git repository of " + *abs);
  Handle<git_repository, git_repository_free> repo(raw);
  const char* wd = git_repository_workdir(raw);
  if (!wd) return Failure{Error::invalid, *abs + " is inside a bare repository; editgate needs a work tree"};
  auto workdir = real_path(wd);
  if (!workdir) return Failure{Error::io, std::string("cannot resolve the work tree ") + wd};
  *workdir += '/';
  std::string here = *abs + '/';
  if (here.compare(0, workdir->size(), *workdir) != 0)
    return Failure{Error::invalid, *abs + " is outside the work tree " + *workdir};
  // A HEAD that cannot be read fails now, before the caller writes any file.
  if (auto head = read_head(raw); !head) return head.error();
  return Repository(repo.release(), *workdir, here.substr(workdir->size()), std::move(options));
}

Repository::Repository(git_repository* repo, std::string workdir, std::string prefix, Options options)
    : repo_(repo),
      workdir_(std::move(workdir)),
      prefix_(std::move(prefix)),
      gitdir_(git_repository_path(repo)),
      commondir_(git_repository_commondir(repo)),
      opt_(std::move(options)),
      index_(std::make_unique<detail::IndexFile>(git_repository_path(repo))) {
  index_->before_rename = opt_.before_index_rename;
}

Repository::Repository(Repository&& o) noexcept
    : repo_(std::exchange(o.repo_, nullptr)),
      workdir_(std::move(o.workdir_)),
      prefix_(std::move(o.prefix_)),
      gitdir_(std::move(o.gitdir_)),
      commondir_(std::move(o.commondir_)),
      opt_(std::move(o.opt_)),
      index_(std::move(o.index_)) {}

Repository& Repository::operator=(Repository&& o) noexcept {
  if (this != &o) {
    if (repo_ && index_deferred() > 0) (void)settle_index();  // as the destructor
    if (repo_) git_repository_free(repo_);
    repo_ = std::exchange(o.repo_, nullptr);
    workdir_ = std::move(o.workdir_);
    prefix_ = std::move(o.prefix_);
    gitdir_ = std::move(o.gitdir_);
    commondir_ = std::move(o.commondir_);
    opt_ = std::move(o.opt_);
    index_ = std::move(o.index_);
  }
  return *this;
}

Repository::~Repository() {
  // Deferred index entries are written, not lost (a failure leaves git
  // status showing the committed files changed, as a failed commit's would).
  if (repo_ && index_deferred() > 0) (void)settle_index();
  if (repo_) git_repository_free(repo_);
}

Identity Repository::user() const {
  git_signature* sig = nullptr;
  if (git_signature_default(&sig, repo_) == 0) {
    SignaturePtr owned(sig);
    return {sig->name, sig->email};
  }
  git_error_clear();
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  Identity who{env("GIT_AUTHOR_NAME"), env("GIT_AUTHOR_EMAIL")};
  if (who.name.empty()) {
    const passwd* pw = ::getpwuid(::getuid());
    who.name = pw && pw->pw_name ? pw->pw_name : "user";
  }
  if (who.email.empty()) {
    char host[256] = "localhost";
    ::gethostname(host, sizeof host - 1);
    who.email = who.name + "@" + host;
  }
  return who;
}

Result<void> Repository::ready_to_commit() const {
  const char* what = nullptr;
  switch (git_repository_state(repo_)) {
    case GIT_REPOSITORY_STATE_NONE:
    case GIT_REPOSITORY_STATE_BISECT: break;
    case GIT_REPOSITORY_STATE_MERGE: what = "a merge"; break;
    case GIT_REPOSITORY_STATE_REVERT:
    case GIT_REPOSITORY_STATE_REVERT_SEQUENCE: what = "a revert"; break;
    case GIT_REPOSITORY_STATE_CHERRYPICK:
    case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE: what = "a cherry-pick"; break;
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX: what = "git am"; break;
    default: what = "a rebase"; break;
  }
  if (what)
    return Failure{Error::conflict, "the repository is in the middle of " + std::string(what) +
                                        "; finish or abort it first, or write the files without a commit (--no-commit)"};
  const auto deadline = std::chrono::steady_clock::now() + opt_.lock_timeout;
  // Taking editgate's own lock clears what a killed editgate left behind.
  auto own = CommitLock::take(gitdir_, commondir_, deadline);
  if (!own) return own.error();
  auto head = read_head(repo_);
  if (!head) return head.error();
  return wait_for_git_locks(deadline, head->ref);
}

std::string Repository::ref_lock(const std::string& ref) const {
  return (ref == "HEAD" ? gitdir_ : commondir_) + ref + ".lock";
}

Result<void> Repository::wait_for_git_locks(std::chrono::steady_clock::time_point deadline,
                                            const std::string& ref) const {
  for (const std::string& lock : {gitdir_ + "index.lock", ref_lock(ref)}) {
    auto pause = std::chrono::milliseconds(2);
    while (::access(lock.c_str(), F_OK) == 0) {
      if (std::chrono::steady_clock::now() >= deadline)
        return Failure{Error::locked, lock + " is held by another git process (waited " +
                                          std::to_string(opt_.lock_timeout.count()) +
                                          " ms); if no git command is running, delete that file (or write the files without a commit: "
                                          "--no-commit)"};
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }
  return {};
}

Result<bool> Repository::ignored(const std::string& path, bool folder) const {
  const std::string full = prefix_ + path + (folder ? "/" : "");
  int ignored = 0;
  const int rc = git_ignore_path_is_ignored(&ignored, repo_, full.c_str());
  if (rc < 0) return failure(rc, "cannot tell whether " + full + " is ignored");
  return ignored != 0;
}

Result<std::string> Repository::head_blob(const std::string& path) const {
  auto head = read_head(repo_);
  if (!head) return head.error();
  if (!head->tree) return std::string();
  git_tree_entry* raw = nullptr;
  const std::string full = prefix_ + path;
  int rc = git_tree_entry_bypath(&raw, head->tree.get(), full.c_str());
  if (rc == GIT_ENOTFOUND) return std::string();
  if (rc < 0) return failure(rc, "cannot look up " + full + " in HEAD");
  TreeEntryPtr entry(raw);
  if (git_tree_entry_type(raw) != GIT_OBJECT_BLOB) return std::string();
  return hex(*git_tree_entry_id(raw));
}

}  // namespace editgit
