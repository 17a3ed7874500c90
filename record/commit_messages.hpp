// The messages of editgate's edit commits, for a reviewer reading `git log`:
// a summary line, a line per block, and the trailers (record/trailers.hpp)
// that `editgate log` and `editgate undo` read back (record/edit_log.hpp).
#pragma once

#include "editproto/applier.hpp"
#include "git/repository.hpp"

#include <string>
#include <vector>

namespace record {

// "edit src/a.py, src/b.py (3 applied, 1 failed)", a line per block, trailers.
std::string edit_message(const std::vector<editproto::BlockResult>& blocks, const std::string& agent,
                         const std::string& session);
// "save uncommitted changes to src/a.py": the files as they were before an
// agent's edit, committed first so that edit's commit shows only its change.
std::string earlier_message(const std::vector<std::string>& paths, const std::string& agent,
                            const std::string& session);
// "edit src/a.py (left by an interrupted run)": files a run wrote and did
// not commit (killed, or its commit failed), committed by the next run as
// that run's agent's. `mixed`: files that had uncommitted changes of their
// own when that run started, which the commit then holds too.
std::string interrupted_message(const std::vector<std::string>& paths, const std::vector<std::string>& mixed,
                                const std::string& agent, const std::string& session);
std::string undo_message(const editgit::CommitInfo& undone, const std::string& agent, const std::string& session);

// A fresh session id: 12 hex digits.
std::string new_session_id();

}  // namespace record
