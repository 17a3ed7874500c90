// editgate's commit messages, both ways: written when a run commits, read
// back by `editgate log` and `editgate undo`. The message is for a reviewer
// reading `git log`; the trailers are for programs.
#pragma once

#include "editproto/session.hpp"
#include "git/repository.hpp"
#include "repl/names.hpp"

#include <boost/json/array.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace editgate {

namespace trailer {
inline constexpr std::string_view agent = "Editgate-Agent";
inline constexpr std::string_view session = "Editgate-Session";
inline constexpr std::string_view kind = "Editgate-Kind";  // edit, earlier-state, undo
inline constexpr std::string_view undoes = "Editgate-Undo";
}  // namespace trailer

// "edit src/a.py, src/b.py (3 applied, 1 failed)", a line per block, trailers.
std::string edit_message(const std::vector<editproto::BlockResult>& blocks, const std::string& agent,
                         const std::string& session);
std::string earlier_message(const std::vector<std::string>& paths, const std::string& agent,
                            const std::string& session);
std::string undo_message(const editgit::CommitInfo& undone, const std::string& agent, const std::string& session);

// An agent name as a commit author (shared with the REPL's commits).
using repl::agent_identity;

// A fresh session id: 12 hex digits.
std::string new_session_id();

struct LoggedBlock {
  std::size_t index = 0;  // 0-based, as in apply's JSON
  std::string status;
  std::string reason;     // "" when none
  std::string path;
  std::optional<std::size_t> line;
};

struct LogEntry {
  editgit::CommitInfo commit;
  std::string kind;
  std::string agent;
  std::string session;
  std::vector<LoggedBlock> blocks;
};

// The entry of an editgate commit; nullopt for anybody else's.
std::optional<LogEntry> read_entry(const editgit::CommitInfo& commit);

// editgate's commits reachable from HEAD, newest first, at most `limit`;
// only `agent`'s and `session`'s when those are not empty. (`editgate log`,
// GET /v1/history and the history op.)
editgit::Result<std::vector<LogEntry>> find_entries(const editgit::Repository& repo, std::size_t limit,
                                                    const std::string& agent, const std::string& session);

void print_log_text(std::ostream& out, const std::vector<LogEntry>& entries);
// The entries as `editgate log --format json` lists them under "commits".
boost::json::array log_json(const std::vector<LogEntry>& entries);
void print_log_json(std::ostream& out, const std::vector<LogEntry>& entries);

}  // namespace editgate
