#include "git/handle.hpp"

namespace editgit::detail {

Failure failure(int rc, std::string_view what) {
  const git_error* e = git_error_last();
  Error code = Error::internal;
  switch (rc) {
    case GIT_ENOTFOUND:
    case GIT_EUNBORNBRANCH: code = Error::not_found; break;
    case GIT_ELOCKED: code = Error::locked; break;
    case GIT_EMODIFIED:
    case GIT_EEXISTS:
    case GIT_ECONFLICT: code = Error::conflict; break;
    case GIT_EINVALIDSPEC:
    case GIT_EINVALID:
    case GIT_EBAREREPO: code = Error::invalid; break;
    default:
      if (e && e->klass == GIT_ERROR_OS) code = Error::io;
  }
  std::string message(what);
  if (e && e->message && *e->message) message += std::string(": ") + e->message;
  return {code, std::move(message)};
}

std::string hex(const git_oid& id) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &id);
  return buf;
}

}  // namespace editgit::detail

namespace editgit::detail {

namespace {
// `h` with its tip's commit and tree.
Result<Head> at_tip(git_repository* repo, Head h, const git_oid& tip, const std::string& what) {
  h.tip = tip;
  git_commit* c = nullptr;
  if (int rc = git_commit_lookup(&c, repo, &tip); rc < 0) return failure(rc, "cannot read " + what + " " + hex(tip));
  h.commit.reset(c);
  git_tree* t = nullptr;
  if (int rc = git_commit_tree(&t, c); rc < 0) return failure(rc, "cannot read the tree of " + hex(tip));
  h.tree.reset(t);
  return h;
}
}  // namespace

std::string trimmed_path(std::string path) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

TreeEntryPtr entry_bypath(git_tree* tree, const std::string& path) {
  git_tree_entry* raw = nullptr;
  if (!tree || git_tree_entry_bypath(&raw, tree, trimmed_path(path).c_str()) < 0) {
    git_error_clear();
    return nullptr;
  }
  return TreeEntryPtr(raw);
}

Result<Head> read_head(git_repository* repo) {
  Head h;
  git_reference* raw = nullptr;
  if (int rc = git_reference_lookup(&raw, repo, "HEAD"); rc < 0) return failure(rc, "cannot read HEAD");
  RefPtr head(raw);
  git_oid tip;
  if (git_reference_type(head.get()) == GIT_REFERENCE_SYMBOLIC) {
    h.ref = git_reference_symbolic_target(head.get());
    int rc = git_reference_name_to_id(&tip, repo, h.ref.c_str());
    if (rc == GIT_ENOTFOUND) return h;  // unborn: the first commit creates the branch
    if (rc < 0) return failure(rc, "cannot resolve " + h.ref);
  } else {
    h.ref = "HEAD";
    tip = *git_reference_target(head.get());
  }
  return at_tip(repo, std::move(h), tip, "HEAD's commit");
}

Result<Head> read_ref(git_repository* repo, const std::string& name) {
  Head h;
  h.ref = name;
  git_oid tip;
  int rc = git_reference_name_to_id(&tip, repo, name.c_str());
  if (rc == GIT_ENOTFOUND) {
    git_error_clear();
    return h;
  }
  if (rc < 0) return failure(rc, "cannot resolve " + name);
  return at_tip(repo, std::move(h), tip, "the commit of " + name);
}

Result<DiffPtr> diff_with_parent(git_repository* repo, const std::string& id, const std::string& prefix,
                                 git_off_t max_size) {
  git_oid oid;
  if (git_oid_fromstr(&oid, id.c_str()) < 0) return Failure{Error::invalid, "'" + id + "' is not a commit id"};
  git_commit* raw = nullptr;
  if (int rc = git_commit_lookup(&raw, repo, &oid); rc < 0) return failure(rc, "no commit " + id);
  CommitPtr commit(raw);
  git_tree* t = nullptr;
  if (int rc = git_commit_tree(&t, raw); rc < 0) return failure(rc, "cannot read the tree of " + id);
  TreePtr tree(t);
  TreePtr parent_tree;  // null: the empty tree
  if (git_commit_parentcount(raw) > 0) {
    git_commit* p = nullptr;
    if (int rc = git_commit_parent(&p, raw, 0); rc < 0) return failure(rc, "cannot read the parent of " + id);
    CommitPtr parent(p);
    git_tree* pt = nullptr;
    if (int rc = git_commit_tree(&pt, p); rc < 0) return failure(rc, "cannot read the parent tree of " + id);
    parent_tree.reset(pt);
  }
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  if (max_size > 0) opts.max_size = max_size;
  char* specs[1] = {const_cast<char*>(prefix.c_str())};
  if (!prefix.empty()) opts.pathspec = {specs, 1};
  git_diff* d = nullptr;
  if (int rc = git_diff_tree_to_tree(&d, repo, parent_tree.get(), tree.get(), &opts); rc < 0)
    return failure(rc, "cannot compare " + id + " with its parent");
  return DiffPtr(d);
}

}  // namespace editgit::detail
