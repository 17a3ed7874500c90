#include "record/run_commit.hpp"

#include "record/commit_messages.hpp"
#include "record/identity.hpp"
#include "record/repl_ref.hpp"
#include "record/trailers.hpp"

#include <set>

namespace record {

void record_edits(editgit::Repository& repo, editproto::Applier& applier, RunReport& report,
                  const std::string& agent) {
  std::vector<editproto::FileChange> changes = applier.take_changes();
  if (changes.empty()) return;
  editgit::CommitRequest req;
  for (const editproto::FileChange& c : changes) {
    if (repl_tree_path(c.path)) {
      // A chat log: the REPL reads the change and commits it on its own ref.
      report.files_not_committed.push_back({c.path, "a chat log: the REPL commits it on " + repl_ref(repo)});
      continue;
    }
    std::optional<std::string_view> before;
    if (const std::string* b = c.before.get()) before = *b;
    req.changes.push_back({c.path, before, c.after, false});
  }
  req.author = agent_identity(agent);
  req.message = with_repl_link(edit_message(report.blocks, agent, report.session), repo);
  req.earlier_message = [&](const std::vector<std::string>& paths) {
    return earlier_message(paths, agent, report.session);
  };
  if (req.changes.empty()) return;
  auto done = repo.commit(req);
  if (!done) {
    report.commit_error = std::string(editgit::to_string(done.error().code)) + ": " + done.error().message;
    return;
  }
  report.commit = done->id;
  if (done->id) report.commits.push_back(*done->id);
  report.earlier_commit = done->earlier;
  report.files_not_committed.insert(report.files_not_committed.end(), done->not_committed.begin(),
                                    done->not_committed.end());
  report.commit_warning = done->warning;
}

editgit::Result<Undone> undo_last(const editproto::Workspace& ws, editgit::Repository& repo,
                                  const std::optional<std::string>& agent, const std::string& session) {
  using editgit::Error;
  using editgit::Failure;
  std::set<std::string> undone;
  auto found = repo.history(
      [&](const editgit::CommitInfo& c) {
        std::string kind = c.trailer(trailer::kind);
        if (kind == "undo") undone.insert(c.trailer(trailer::undoes));
        return kind == "edit" && !undone.count(c.id);
      },
      1);
  if (!found) return found.error();
  if (found->empty()) return Failure{Error::not_found, "there is no editgate edit on this branch left to undo"};
  const editgit::CommitInfo& target = found->front();
  const std::string short_id = target.id.substr(0, 12);

  auto diffs = repo.diff(target.id);
  if (!diffs) return diffs.error();
  // Every file must still be as the edit left it, in HEAD and on disk.
  for (const editgit::FileDiff& d : *diffs) {
    auto head = repo.head_blob(d.path);
    if (!head) return head.error();
    if (*head != d.new_id)
      return Failure{Error::conflict, "cannot undo " + short_id + " (" + target.summary + "): " + d.path +
                                          " changed in a later commit"};
    auto disk = ws.read(d.path, editproto::Limits{}.max_file_bytes);
    if (!disk) return Failure{Error::io, "cannot undo " + short_id + ": " + disk.error().detail};
    const bool same = d.new_bytes ? disk->stamp.exists && disk->bytes == *d.new_bytes : !disk->stamp.exists;
    if (!same)
      return Failure{Error::conflict, "cannot undo " + short_id + " (" + target.summary + "): " + d.path +
                                          " has uncommitted changes; commit or discard them first"};
  }

  // A merge, rebase or lock in the way refuses the undo before a file is
  // written, not after (the commit would be refused with the files changed).
  if (auto ready = repo.ready_to_commit(); !ready) return ready.error();
  editgit::CommitRequest req;
  for (const editgit::FileDiff& d : *diffs) {
    if (d.old_bytes) {
      const std::string_view bytes = *d.old_bytes;
      auto w = ws.write_atomic(d.path, std::span<const std::string_view>(&bytes, 1));
      if (!w) return Failure{Error::io, "undo stopped at " + d.path + ": " + w.error().detail};
    } else if (auto r = ws.remove(d.path); !r) {
      return Failure{Error::io, "undo stopped at " + d.path + ": " + r.error().detail};
    }
    editgit::Change c;
    c.path = d.path;
    if (d.new_bytes) c.before = std::string_view(*d.new_bytes);
    if (d.old_bytes) c.after = {std::string_view(*d.old_bytes)};
    c.deleted = !d.old_bytes;
    req.changes.push_back(std::move(c));
  }
  const editgit::Identity who = agent ? agent_identity(*agent) : repo.user();
  req.author = who;
  req.message = with_repl_link(undo_message(target, who.name, session), repo);
  auto committed = repo.commit(req);
  if (!committed) return committed.error();
  return Undone{target.id, target.summary, std::move(*committed)};
}

}  // namespace record
