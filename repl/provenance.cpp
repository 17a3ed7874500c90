#include "repl/provenance.hpp"

#include "record/repl_ref.hpp"

namespace repl {

Result<Provenance> GitProvenance::of(const std::string& path, const std::string& text, const Lines& lines,
                                     bool saved) {
  if (!repo_) {
    auto opened = editgit::Repository::open(root_, {}, false);
    // No repository: nothing is committed, so nothing came with git.
    if (!opened && opened.error().code == editgit::Error::not_found) return Provenance{};
    if (!opened) return Failure{Error::io, "cannot open the git repository: " + opened.error().message};
    repo_.emplace(std::move(*opened));
  }
  if (saved) {
    // Conflict markers and half-applied states: whatever appears now came with the operation.
    if (auto ready = repo_->ready_to_commit(); !ready && ready.error().code == editgit::Error::conflict)
      return Provenance{lines.size(), "it came with git, in the middle of a merge, rebase, cherry-pick, revert "
                                      "or am"};
    // Pulls, checkouts, merges, rebases, resets and stashes write files
    // whole, as blobs the repository holds (fetched before the file changes).
    auto held = repo_->holds_blob(path, text);
    if (!held) return Failure{Error::io, "cannot ask git about " + path + ": " + held.error().message};
    if (*held)
      return Provenance{lines.size(), "it came with git: the log as found is a version git holds (a pull, "
                                      "checkout, merge, rebase, reset or stash wrote it)"};
  }
  // A local change on top of a commit: the lines as the REPL's ref has
  // them, or as the branch has them (a log it still tracks), are the commit's.
  const auto in_tree = record::repl_tree_path(path);
  if (!in_tree) return Provenance{};
  if (ref_.empty()) ref_ = record::repl_ref(*repo_);
  auto on_ref = repo_->text_at(ref_, *in_tree);
  if (!on_ref) return Failure{Error::io, "cannot ask git about " + path + ": " + on_ref.error().message};
  auto on_branch = repo_->head_text(path);
  if (!on_branch) return Failure{Error::io, "cannot ask git about " + path + ": " + on_branch.error().message};
  Provenance best;
  for (const auto& [known, where] : {std::pair{&*on_ref, ref_}, std::pair{&*on_branch, std::string("HEAD")}}) {
    if (!*known) continue;
    const Lines committed = split_lines(**known);
    std::size_t n = 0;
    while (n < committed.size() && n < lines.size() && committed[n] == lines[n]) ++n;
    if (n > best.committed) best = {n, "it came with git: it is in the log as committed on " + where};
  }
  return best;
}

}  // namespace repl
