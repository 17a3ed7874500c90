// editgate's history read back from git: its commits (those with an
// Editgate-Kind trailer) and the blocks their messages list, for
// `editgate log`, `editgate undo`, GET /v1/history and the history op. The
// messages are written by record/commit_messages.hpp.
#pragma once

#include "git/repository.hpp"

#include <boost/json/array.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace record {

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

// When the commit was made, as the history's JSON gives it: ISO 8601 in the
// committer's time zone ("2026-11-24T14:50:32+01:00").
std::string iso_time(const editgit::CommitInfo& commit);

void print_log_text(std::ostream& out, const std::vector<LogEntry>& entries);
// The entries as `editgate log --format json` lists them under "commits".
boost::json::array log_json(const std::vector<LogEntry>& entries);
void print_log_json(std::ostream& out, const std::vector<LogEntry>& entries);

}  // namespace record
