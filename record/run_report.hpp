// Output of check/apply runs: text for people, JSON for programs, GitHub
// workflow annotations for CI.
#pragma once

#include "editproto/applier.hpp"
#include "git/repository.hpp"
#include "record/run_journal.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace record {

enum class Format { text, json, github };

struct RunReport {
  std::vector<editproto::BlockResult> blocks;
  std::vector<editproto::Warning> warnings;   // stray markers: not blocks, no effect on the exit code
  std::vector<std::string> files_auto_added;
  std::optional<std::string> commit;          // the (last) commit of what this run applied
  std::vector<std::string> commits;           // every commit of the run, oldest first (see EditRun)
  std::optional<std::string> earlier_commit;  // the files' uncommitted earlier state, committed first
  std::vector<editgit::NotCommitted> files_not_committed;  // written but left out of the commit
  std::optional<std::string> commit_error;    // "locked: ..." when the commit failed
  std::string commit_warning;                 // the commit landed, something after it did not
  std::vector<Interrupted> interrupted;       // files earlier runs left uncommitted, committed first
  std::string session;
  bool dry_run = true;
};

// "3 applied, 1 failed", or "no edit blocks found".
std::string counts(const std::vector<editproto::BlockResult>& blocks);

// True when every block did what was asked (validated or applied; an
// identical EDIT/REPL pair counts as done).
bool all_ok(const RunReport& report);

// How a run ended, as `editgate check/apply` exit with it: every block did
// what was asked, some did not, or what was applied is not committed.
enum class Verdict { ok = 0, blocks_failed = 1, commit_failed = 2 };
Verdict verdict(const RunReport& report);

// One block's result as JSON (apply --format json, NDJSON lines, WS block messages).
boost::json::object block_json(const editproto::BlockResult& r);
// The run as JSON: `ok` (every block did what was asked), the blocks (or,
// without them, their counts and a summary line), files_auto_added and the
// commit fields.
boost::json::object report_json(const RunReport& report, bool with_blocks);

// What `apply` prints of the run, without colour, as valid UTF-8: the
// `text` of every door's final edit reply.
std::string report_text(const RunReport& report);

void print_text(std::ostream& out, const RunReport& report, bool colour);
void print_json(std::ostream& out, const RunReport& report);
void print_github(std::ostream& out, const RunReport& report);

}  // namespace record
