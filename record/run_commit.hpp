// Where the edit engine's results meet the git layer: the commit of a run,
// and the undo of one.
#pragma once

#include "editproto/applier.hpp"
#include "editproto/workspace.hpp"
#include "record/run_report.hpp"
#include "git/repository.hpp"

#include <optional>
#include <string>
#include <vector>

namespace record {

// Commits what `applier` wrote since the last call (one commit, plus the
// earlier-state commit when needed) and fills the report's commit fields.
void record_edits(editgit::Repository& repo, editproto::Applier& applier, RunReport& report,
                  const std::string& agent);

struct Undone {
  std::string reverted;   // the commit undone
  std::string summary;    // its summary line
  editgit::CommitResult commit;
};

// Reverts the newest editgate edit that is not undone yet, as a new commit.
// Refuses (Error::conflict, naming the file) when a file it changed has
// changed since, in a later commit or on disk; then nothing is touched.
// `agent` names who asks; nullopt: the repository's user.
editgit::Result<Undone> undo_last(const editproto::Workspace& ws, editgit::Repository& repo,
                                  const std::optional<std::string>& agent, const std::string& session);

}  // namespace record
