// Side refs: a history that stands beside the branch (the REPL's), whose
// tree holds files stored as written, read and started here; commit.cpp
// moves them.
#include "git/handle.hpp"
#include "git/repository.hpp"

namespace editgit {

using namespace detail;

Result<std::string> Repository::ref_tip(const std::string& ref) const {
  auto head = read_ref(repo_, ref);
  if (!head) return head.error();
  return head->tip ? hex(*head->tip) : std::string();
}

Result<std::optional<std::string>> Repository::text_at(const std::string& ref, const std::string& path) const {
  auto head = read_ref(repo_, ref);
  if (!head) return head.error();
  if (!head->tree) return std::optional<std::string>();
  git_tree_entry* raw = nullptr;
  int rc = git_tree_entry_bypath(&raw, head->tree.get(), path.c_str());
  if (rc == GIT_ENOTFOUND) {
    git_error_clear();
    return std::optional<std::string>();
  }
  if (rc < 0) return failure(rc, "cannot look up " + path + " in " + ref);
  TreeEntryPtr entry(raw);
  if (git_tree_entry_type(raw) != GIT_OBJECT_BLOB) return std::optional<std::string>();
  git_blob* b = nullptr;
  if (int brc = git_blob_lookup(&b, repo_, git_tree_entry_id(raw)); brc < 0)
    return failure(brc, "cannot read " + path + " in " + ref);
  BlobPtr blob(b);
  const auto* bytes = static_cast<const char*>(git_blob_rawcontent(b));
  return std::optional<std::string>(std::string(bytes, static_cast<std::size_t>(git_blob_rawsize(b))));
}

Result<Taken> Repository::take_from_head(const std::string& ref, const std::vector<SideFolder>& from,
                                         const Identity& author, const std::string& message) {
  Taken out;
  auto side = read_ref(repo_, ref);
  if (!side) return side.error();
  auto head = read_head(repo_);
  if (!head) return head.error();
  if (!head->tree) return out;
  // Every file HEAD has in the folders that `keep` accepts goes to its place
  // in the side ref's tree, unless it is there as it is (the objects are in
  // the store already).
  struct Found {
    std::string path;
    git_oid id;
    git_filemode_t mode;
  };
  std::vector<Found> found;
  for (const SideFolder& f : from) {
    const std::string full = trimmed_path(prefix_ + f.folder);
    TreeEntryPtr entry = entry_bypath(head->tree.get(), full);
    if (!entry || git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) continue;
    git_tree* t = nullptr;
    if (int rc = git_tree_lookup(&t, repo_, git_tree_entry_id(entry.get())); rc < 0)
      return failure(rc, "cannot read " + full);
    TreePtr tree(t);
    struct Walk {
      const SideFolder* folder;
      std::vector<std::pair<std::string, Found>> files;  // path below the folder, and where it goes
    } walk{&f, {}};
    auto visit = [](const char* root, const git_tree_entry* e, void* payload) -> int {
      auto* w = static_cast<Walk*>(payload);
      if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) return 0;
      const std::string below = std::string(root) + git_tree_entry_name(e);
      if (!w->folder->keep || !w->folder->keep(below)) return 0;
      const std::string& at = w->folder->at;
      w->files.push_back({below, {at + (at.empty() ? "" : "/") + below, *git_tree_entry_id(e),
                                  git_tree_entry_filemode(e)}});
      return 0;
    };
    if (int rc = git_tree_walk(t, GIT_TREEWALK_PRE, visit, &walk); rc < 0) return failure(rc, "cannot read " + full);
    for (auto& [below, file] : walk.files) {
      out.paths.push_back(trimmed_path(f.folder) + "/" + below);
      // The branch's version wins where it differs: what was committed is
      // history (the trust rule reads the side ref), even over a newer text.
      TreeEntryPtr has = entry_bypath(side->tree.get(), file.path);
      if (!has || !git_oid_equal(git_tree_entry_id(has.get()), &file.id)) found.push_back(std::move(file));
    }
  }
  if (found.empty()) return out;
  std::vector<git_tree_update> updates;
  for (const Found& f : found) updates.push_back({GIT_TREE_UPDATE_UPSERT, f.id, f.mode, f.path.c_str()});
  TreePtr base = std::move(side->tree);
  if (!base) {
    git_treebuilder* raw_builder = nullptr;
    if (int rc = git_treebuilder_new(&raw_builder, repo_, nullptr); rc < 0) return failure(rc, "cannot make a tree");
    Handle<git_treebuilder, git_treebuilder_free> builder(raw_builder);
    git_oid empty;
    if (int rc = git_treebuilder_write(&empty, raw_builder); rc < 0) return failure(rc, "cannot make a tree");
    git_tree* t = nullptr;
    if (int rc = git_tree_lookup(&t, repo_, &empty); rc < 0) return failure(rc, "cannot make a tree");
    base.reset(t);
  }
  git_oid tree_id, id;
  if (int rc = git_tree_create_updated(&tree_id, repo_, base.get(), updates.size(), updates.data()); rc < 0)
    return failure(rc, "cannot build the tree of " + ref);
  if (side->tip && git_oid_equal(&tree_id, git_tree_id(base.get()))) return out;  // it has them all
  git_tree* t = nullptr;
  if (int rc = git_tree_lookup(&t, repo_, &tree_id); rc < 0) return failure(rc, "cannot read the tree of " + ref);
  TreePtr tree(t);
  git_signature *by = nullptr, *committer = nullptr;
  if (int rc = git_signature_now(&by, author.name.c_str(), author.email.c_str()); rc < 0)
    return failure(rc, "invalid author '" + author.name + "'");
  SignaturePtr by_owned(by);
  if (int rc = git_signature_now(&committer, opt_.committer.name.c_str(), opt_.committer.email.c_str()); rc < 0)
    return failure(rc, "invalid committer");
  SignaturePtr committer_owned(committer);
  const git_commit* parents[1] = {side->commit.get()};
  if (int rc = git_commit_create(&id, repo_, nullptr, by, committer, nullptr, message.c_str(), t, side->tip ? 1 : 0,
                                 parents);
      rc < 0)
    return failure(rc, "cannot create a commit on " + ref);
  git_reference* made = nullptr;
  // Compare-and-swap: a ref that moved meanwhile is left as it is.
  int rc = side->tip ? git_reference_create_matching(&made, repo_, ref.c_str(), &id, 1, &*side->tip, nullptr)
                     : git_reference_create(&made, repo_, ref.c_str(), &id, 0, nullptr);
  RefPtr owned(made);
  if (rc == GIT_EEXISTS || rc == GIT_EMODIFIED) {
    git_error_clear();
    return Failure{Error::conflict, ref + " moved while the chat logs of HEAD were taken onto it"};
  }
  if (rc < 0) return failure(rc, "cannot move " + ref);
  out.commit = hex(id);
  return out;
}

}  // namespace editgit
