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

// Which of editgate's commits to read back.
struct LogQuery {
  std::size_t limit = 20;
  std::string agent;    // only its commits, when not empty
  std::string session;  // only its commits, when not empty
  std::string kind;     // only commits of this Editgate-Kind, when not empty
  bool repl = false;    // the REPL's ref (record/repl_ref.hpp) instead of the branch
  std::string before;   // a commit id: only commits older than it (the previous page's last)
};

// A page of editgate's commits, newest first (`editgate log`, GET
// /v1/history and the history op).
struct LogPage {
  std::vector<LogEntry> entries;
  std::string ref;          // the ref read: "HEAD" or the REPL's
  std::string next_before;  // the cursor of the next page; "" when this one reached the first commit
};
editgit::Result<LogPage> find_entries(const editgit::Repository& repo, const LogQuery& query);

// When the commit was made, as the history's JSON gives it: ISO 8601 in the
// committer's time zone ("2026-11-24T14:50:32+01:00").
std::string iso_time(const editgit::CommitInfo& commit);

// The page as `editgate log` prints it, with the command for the next page.
void print_log_text(std::ostream& out, const LogPage& page);
// The entries as `editgate log --format json` lists them under "commits".
boost::json::array log_json(const std::vector<LogEntry>& entries);
// {"ref", "commits", "next_before"}: the history op's answer too.
boost::json::object log_page_json(const LogPage& page);
void print_log_json(std::ostream& out, const LogPage& page);

}  // namespace record
