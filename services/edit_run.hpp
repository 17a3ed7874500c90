// One agent message of edit blocks, fed as it streams in: each block is
// applied (written) the moment it is complete, and everything applied is
// committed once, at the end or when the stream breaks off. Worker thread only.
// The applying and committing are record::RunDriver's (streamed); this is
// the gateway's part: which open run holds a file, the hooks, the log.
#pragma once

#include "editproto/applier.hpp"
#include "services/error.hpp"
#include "services/run_ring.hpp"
#include "record/run_driver.hpp"
#include "record/run_report.hpp"
#include "git/commit_queue.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <string>

#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace services {

// What an agent asks of one edit run, from a query or a WebSocket message.
struct EditParams {
  bool dry_run = false;
  std::string agent = "agent";
  std::string session;  // "": a new id per run
  std::optional<std::vector<std::string>> context;
  bool fuzz_whitespace = false;
  // How its diagnostics name an option: the gateway's doors take JSON
  // parameters, but for a query's (POST /v1/edits).
  editproto::OptionSyntax option_syntax = editproto::OptionSyntax::json;
};

// The message of one block, on both doors: {"block": {...}}.
boost::json::object block_message(const editproto::BlockResult& r);

// How a run ended: `failure`, else commit_failed when the commit failed.
std::optional<Failure> run_failure(const record::RunReport& report, std::optional<Failure> failure);

class EditRun;

// Which open run last wrote a file it has not committed yet, by normalised
// path. One per worker (its thread only), shared by all its runs.
using Owners = std::map<std::string, EditRun*>;

// What a run is wired to: where its commits are made, and where the REPL
// hears of agents' edits. One per worker; called on its thread.
struct EditHooks {
  // Runs a commit on the workspace's commit queue (git/commit_queue.hpp) and
  // waits for it: every commit in the workspace is made there, in the order
  // its files were written. The worker sets it; a run without it commits
  // nothing and says so (commit_error).
  std::function<editgit::Result<void>(const editgit::CommitQueue::Work& work)> commit;
  // Queues work on the same queue without waiting (the record of a run the
  // branch does not hold whole). May be empty.
  std::function<editgit::Result<void>(editgit::CommitQueue::Work work)> submit;
  // After a block was applied to `path` (a request appended to a chat log
  // runs). May be empty.
  std::function<void(const std::string& path, const std::string& agent)> written;
  // Where each run is recorded as it ends (EditRun::log): the worker's
  // recent runs. May be null.
  RunRing* runs = nullptr;
};

class EditRun {
 public:
  // Refuses, before anything is written, when git is in the middle of a
  // merge, rebase, revert, cherry-pick or am (Error::conflict). Called by
  // Worker::start_run only, the one place a run is made.
  static Result<std::unique_ptr<EditRun>> start(const editproto::Workspace& ws, editgit::Repository& repo,
                                                Owners& owners, const EditHooks& hooks, EditParams params);
  ~EditRun();
  EditRun(const EditRun&) = delete;
  EditRun& operator=(const EditRun&) = delete;

  // The results of the blocks this chunk completes, in order; their files
  // are written before this returns (not in a dry run).
  std::vector<editproto::BlockResult> feed(std::string_view chunk);

  // The end of the text: a block still open fails incomplete_block.
  std::vector<editproto::BlockResult> finish();

  // Commits what was applied (once; later calls return the same report).
  // A stream that broke off is committed without finish(): a block cut in
  // half was never applied and gets no result.
  //
  // One commit per run, except when runs overlap on a file: before another
  // open run changes a file this one wrote, what this one applied so far is
  // committed (and the rest later), so each commit holds one agent's work
  // and no run's uncommitted edits pass for the user's earlier state.
  const record::RunReport& commit();

  // The text went over the size limit (Limits::max_response_bytes): the
  // parser reads no more of it, so neither should the caller.
  bool overflowed() const { return driver_.overflowed(); }
  const record::RunReport& report() const { return driver_.report(); }

  // The end of the run, where every door ends it (after commit()): one line
  // for the person watching `editgate serve`, through the log hook
  // (repl/log.hpp): "<door>, agent A, session S: 2 applied, committed 1a2b3c4d5e6f",
  // with "(cut off: <why>)" when the stream did not end normally; and the
  // run recorded in the worker's recent runs (hooks.runs), once.
  void log(std::string_view door, std::optional<Error> cut = std::nullopt);
  const std::vector<std::string>& files_auto_added() const { return driver_.files_auto_added(); }

  // Commits the blocks applied since the last commit, and lets go of their
  // files (another run, or the REPL, is about to write one of them).
  void release() { commit_pending(); }

 private:
  EditRun(const editproto::Workspace& ws, Owners& owners, const EditHooks& hooks, EditParams params,
          const std::string& gitdir);
  // Takes the block's file from the run that has uncommitted edits in it,
  // committing those first.
  void claim(const std::string& raw_path);
  // Commits the blocks applied since the last commit, and lets go of their files.
  void commit_pending();

  const editproto::Workspace& ws_;
  Owners& owners_;
  const EditHooks& hooks_;
  EditParams params_;
  record::RunDriver driver_;
  bool committed_ = false;
  bool recorded_ = false;  // in hooks_.runs already
  std::chrono::system_clock::time_point started_ = std::chrono::system_clock::now();
};

}  // namespace services
