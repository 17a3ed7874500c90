// The run driver: what every door's edit run and `editgate check/apply`
// share. It turns a run's parameters into the applier's options, writes
// through the run's journal, parses the text, applies the blocks, collects
// their results and the parser's warnings into a RunReport, and commits
// what was applied through a function the caller gives (which decides the
// thread and the repository). Who may write which file, hooks, logs and
// refusals are the caller's: the gateway's run is services::EditRun.
#pragma once

#include "editproto/applier.hpp"
#include "editproto/parser.hpp"
#include "editproto/workspace.hpp"
#include "git/repository.hpp"
#include "record/run_journal.hpp"
#include "record/run_report.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace record {

// What one run is asked to do.
struct RunParams {
  bool dry_run = false;
  bool fuzz_whitespace = false;
  editproto::OptionSyntax option_syntax = editproto::OptionSyntax::command_line;  // how diagnostics name options
  std::optional<std::vector<std::string>> context;
  std::string agent = "agent";
  std::string session;  // the report's and the commits'; the caller picks it ("" for none)
};

// Runs `work` with the repository the run commits into, and waits for it
// (the gateway: on the commit queue; the CLI: on its own handle, at once).
using RepoWork = std::function<void(editgit::Repository&)>;
using CommitWith = std::function<editgit::Result<void>(const RepoWork& work)>;

class RunDriver {
 public:
  enum class Mode {
    // Each block is applied, its file written, the moment it is complete:
    // what a stream that breaks off has applied stays applied.
    streamed,
    // The blocks are applied at finish(), all at once: each file is indexed
    // once for exactly the lines its blocks look for, and written once.
    whole,
  };

  // What the caller does around each block (both modes). May be empty.
  struct BlockHooks {
    std::function<void(const editproto::Block& block)> before;          // before it is applied
    std::function<void(const editproto::BlockResult& result)> after;    // its result is in the report
  };

  // `gitdir` (Repository::gitdir()) holds the run's journal; nullopt: no
  // journal (a run that commits nothing). A dry run keeps none either.
  RunDriver(const editproto::Workspace& ws, RunParams params, Mode mode, std::optional<std::string> gitdir,
            BlockHooks hooks = {});
  RunDriver(const RunDriver&) = delete;
  RunDriver& operator=(const RunDriver&) = delete;

  // Commits, through `commit`, the files earlier runs wrote and never
  // committed, as their agents' (record::commit_interrupted), and names
  // them in the report. Call before anything is fed.
  editgit::Result<void> commit_interrupted(const CommitWith& commit);

  // Streamed: the results of the blocks this chunk completes, their files
  // written (not in a dry run). Whole: nothing yet (the blocks wait for
  // finish()). Results, warnings and files_auto_added go into the report.
  std::vector<editproto::BlockResult> feed(std::string_view chunk);
  // The end of the text: a block still open fails incomplete_block.
  // Streamed: that block's result; whole: every block's, files written.
  std::vector<editproto::BlockResult> finish();

  // Commits, through `commit`, what was applied since the last call (not in
  // a dry run), and lets the journal go after a clean commit; the report
  // gets the commit fields. `commit` must be callable.
  void commit(const CommitWith& commit);

  // The text went over Limits::max_response_bytes: the parser reads no
  // more of it, so neither should the caller.
  bool overflowed() const { return overflowed_; }
  const RunReport& report() const { return report_; }
  const RunParams& params() const { return params_; }
  const std::vector<std::string>& files_auto_added() const { return applier_.files_auto_added(); }

 private:
  editproto::Options options();
  std::vector<editproto::BlockResult> apply(std::vector<editproto::Block>& blocks);
  void take_warnings();

  const editproto::Workspace& ws_;
  RunParams params_;
  Mode mode_;
  BlockHooks hooks_;
  editproto::Limits limits_;
  std::optional<RunJournal> journal_;  // before applier_: its writes go through the journal
  editproto::Applier applier_;
  editproto::Parser parser_;
  std::vector<editproto::Block> waiting_;  // whole: the blocks parsed so far
  RunReport report_;
  std::size_t bytes_ = 0;
  std::size_t blocks_committed_ = 0;  // report_.blocks already in a commit
  bool overflowed_ = false;
};

}  // namespace record
