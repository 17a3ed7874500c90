// Reading history back: commits with their trailers, and what one commit
// changed.
#include "git/handle.hpp"
#include "git/message.hpp"
#include "git/repository.hpp"

namespace editgit {

using namespace detail;

namespace {

CommitInfo describe(const git_commit* c) {
  CommitInfo info;
  info.id = hex(*git_commit_id(c));
  for (unsigned i = 0; i < git_commit_parentcount(c); ++i) info.parents.push_back(hex(*git_commit_parent_id(c, i)));
  const git_signature* a = git_commit_author(c);
  const git_signature* m = git_commit_committer(c);
  info.author = {a->name, a->email};
  info.committer = {m->name, m->email};
  info.time = git_commit_time(c);
  info.offset_minutes = git_commit_time_offset(c);
  info.message = git_commit_message(c);
  info.summary = info.message.substr(0, info.message.find('\n'));
  // Not git_message_trailers: it ends the message at a "---" line, so text
  // above that line would be read as the trailers.
  info.trailers = read_trailers(info.message);
  return info;
}

}  // namespace

Result<std::vector<CommitInfo>> Repository::history(const std::function<bool(const CommitInfo&)>& keep,
                                                    std::size_t limit, const std::string& from) const {
  std::vector<CommitInfo> out;
  std::optional<git_oid> start;
  if (from.size() == GIT_OID_HEXSZ && from.find_first_not_of("0123456789abcdef") == std::string::npos) {
    git_oid id;
    if (git_oid_fromstr(&id, from.c_str()) < 0) return Failure{Error::invalid, "'" + from + "' is not a commit id"};
    start = id;
  } else {
    auto head = from.empty() ? read_head(repo_) : read_ref(repo_, from);
    if (!head) return head.error();
    start = head->tip;
  }
  if (!start || limit == 0) return out;
  git_revwalk* raw = nullptr;
  if (int rc = git_revwalk_new(&raw, repo_); rc < 0) return failure(rc, "cannot walk the history");
  RevwalkPtr walk(raw);
  git_revwalk_sorting(raw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (int rc = git_revwalk_push(raw, &*start); rc < 0) return failure(rc, "cannot walk the history");
  git_oid id;
  int rc;
  while ((rc = git_revwalk_next(&id, raw)) == 0) {
    git_commit* c = nullptr;
    if (int lrc = git_commit_lookup(&c, repo_, &id); lrc < 0) return failure(lrc, "cannot read commit " + hex(id));
    CommitPtr commit(c);
    CommitInfo info = describe(c);
    if (keep && !keep(info)) continue;
    out.push_back(std::move(info));
    if (out.size() >= limit) break;
  }
  if (rc < 0 && rc != GIT_ITEROVER) return failure(rc, "cannot walk the history");
  git_error_clear();
  return out;
}

Result<CommitInfo> Repository::find_commit(const std::string& prefix) const {
  if (prefix.empty() || prefix.size() > GIT_OID_HEXSZ ||
      prefix.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return Failure{Error::invalid, "'" + prefix + "' is not a commit id (hex digits)"};
  git_oid oid;
  if (int rc = git_oid_fromstrn(&oid, prefix.data(), prefix.size()); rc < 0)
    return failure(rc, "'" + prefix + "' is not a commit id");
  git_object* raw = nullptr;
  int rc = git_object_lookup_prefix(&raw, repo_, &oid, prefix.size(), GIT_OBJECT_COMMIT);
  if (rc == GIT_EAMBIGUOUS) {
    git_error_clear();
    return Failure{Error::invalid, "'" + prefix + "' names more than one object; give more digits"};
  }
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
    git_error_clear();
    return Failure{Error::not_found, "no commit " + prefix};
  }
  if (rc < 0) return failure(rc, "cannot look up " + prefix);
  CommitPtr commit(reinterpret_cast<git_commit*>(raw));
  return describe(commit.get());
}

Result<std::vector<FileDiff>> Repository::diff(const std::string& id) const {
  auto compared = diff_with_parent(repo_, id, prefix_);
  if (!compared) return compared.error();
  DiffPtr owned = std::move(*compared);
  git_diff* d = owned.get();

  // Contents as a checkout would write them (smudge filters, line endings).
  auto content = [&](const git_diff_file& f, std::string& out) -> int {
    git_blob* b = nullptr;
    if (int rc = git_blob_lookup(&b, repo_, &f.id); rc < 0) return rc;
    BlobPtr blob(b);
    git_buf buf = GIT_BUF_INIT;
    git_blob_filter_options fo = GIT_BLOB_FILTER_OPTIONS_INIT;
    fo.flags = 0;
    int rc = git_blob_filter(&buf, b, f.path, &fo);
    if (rc == 0) out.assign(buf.ptr, buf.size);
    git_buf_dispose(&buf);
    return rc;
  };

  std::vector<FileDiff> out;
  for (std::size_t i = 0; i < git_diff_num_deltas(d); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(d, i);
    FileDiff fd;
    const char* path = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
    fd.path = std::string(path).substr(prefix_.size());
    if (delta->status != GIT_DELTA_ADDED) {
      fd.old_bytes.emplace();
      if (int rc = content(delta->old_file, *fd.old_bytes); rc < 0) return failure(rc, "cannot read " + fd.path);
    }
    if (delta->status != GIT_DELTA_DELETED) {
      fd.new_bytes.emplace();
      if (int rc = content(delta->new_file, *fd.new_bytes); rc < 0) return failure(rc, "cannot read " + fd.path);
      fd.new_id = hex(delta->new_file.id);
    }
    out.push_back(std::move(fd));
  }
  return out;
}

}  // namespace editgit
