#include "services/edit_run.hpp"

#include "record/commit_messages.hpp"
#include "record/identity.hpp"
#include "record/repl_ref.hpp"
#include "record/run_commit.hpp"
#include "repl/log.hpp"

#include <boost/json.hpp>

namespace services {

namespace {

record::RunParams run_params(const EditParams& p) {
  record::RunParams r;
  r.dry_run = p.dry_run;
  r.fuzz_whitespace = p.fuzz_whitespace;
  r.option_syntax = p.option_syntax;
  r.context = p.context;
  r.agent = p.agent;
  r.session = p.session.empty() ? record::new_session_id() : p.session;
  return r;
}

}  // namespace

boost::json::object block_message(const editproto::BlockResult& r) { return {{"block", record::block_json(r)}}; }

std::optional<Failure> run_failure(const record::RunReport& report, std::optional<Failure> failure) {
  if (!failure && report.commit_error)
    failure = Failure{Error::commit_failed, *report.commit_error + "; the files are written but not committed"};
  return failure;
}

Result<std::unique_ptr<EditRun>> EditRun::start(const editproto::Workspace& ws, editgit::Repository& repo,
                                                Owners& owners, const EditHooks& hooks, EditParams params) {
  if (!params.dry_run) {
    if (auto ready = repo.ready_to_commit(); !ready)
      return Failure{ready.error().code == editgit::Error::locked ? Error::locked : Error::conflict,
                     ready.error().message};
  }
  const bool dry_run = params.dry_run;
  auto run = std::unique_ptr<EditRun>(new EditRun(ws, owners, hooks, std::move(params), repo.gitdir()));
  if (!dry_run && hooks.commit) {
    // Files an earlier run wrote and never committed are its agent's: they
    // are committed before this run writes anything.
    if (auto left = run->driver_.commit_interrupted(hooks.commit); !left)
      return Failure{left.error().code == editgit::Error::locked ? Error::locked : Error::commit_failed,
                     "cannot commit what an interrupted run left: " + left.error().message};
  }
  return run;
}

EditRun::EditRun(const editproto::Workspace& ws, Owners& owners, const EditHooks& hooks, EditParams params,
                 const std::string& gitdir)
    : ws_(ws), owners_(owners), hooks_(hooks), params_(std::move(params)),
      driver_(ws, run_params(params_), record::RunDriver::Mode::streamed, gitdir,
              {.before = [this](const editproto::Block& b) {
                 if (!params_.dry_run && b.ok()) claim(b.path);
               },
               // The REPL may commit this block's change (it is in the
               // report already) before it answers a request the block appended.
               .after = [this](const editproto::BlockResult& r) {
                 if (r.status == editproto::Status::applied && !params_.dry_run && hooks_.written)
                   hooks_.written(r.path, params_.agent);
               }}) {}

EditRun::~EditRun() {
  std::erase_if(owners_, [this](const auto& entry) { return entry.second == this; });
}

void EditRun::claim(const std::string& raw_path) {
  auto path = ws_.normalize(raw_path);
  if (!path) return;
  auto it = owners_.find(*path);
  if (it != owners_.end() && it->second != this) it->second->commit_pending();  // which lets go of the file
  owners_[*path] = this;
}

std::vector<editproto::BlockResult> EditRun::feed(std::string_view chunk) { return driver_.feed(chunk); }

std::vector<editproto::BlockResult> EditRun::finish() { return driver_.finish(); }

void EditRun::commit_pending() {
  std::erase_if(owners_, [this](const auto& entry) { return entry.second == this; });
  if (hooks_.commit) return driver_.commit(hooks_.commit);
  driver_.commit([](const record::RepoWork&) -> editgit::Result<void> {
    return editgit::Failure{editgit::Error::invalid, "no commit queue"};
  });
}

const record::RunReport& EditRun::commit() {
  if (committed_) return driver_.report();
  committed_ = true;
  commit_pending();
  return driver_.report();
}

void EditRun::log(std::string_view door, std::optional<Error> cut) {
  const record::RunReport& ran = driver_.report();
  if (hooks_.runs && !recorded_) hooks_.runs->record(ran, RunEnd{std::string(door), params_.agent, started_, cut});
  // What the branch does not hold whole goes on the record on the REPL's
  // ref, so a restart keeps it: a dry run, a block that did not apply, a
  // commit that failed.
  const bool whole = !params_.dry_run && record::all_ok(ran) && !ran.commit_error;
  if (hooks_.submit && !recorded_ && !whole && !ran.blocks.empty()) {
    auto report = std::make_shared<record::RunReport>(ran);
    auto queued = hooks_.submit([report, door = std::string(door), agent = params_.agent,
                                 dry_run = params_.dry_run](editgit::Repository& repo) {
      editgit::CommitRequest req;
      req.ref = record::repl_ref(repo);
      req.allow_empty = true;
      req.author = record::agent_identity(agent);
      req.message = record::run_record_message(*report, door, agent, dry_run, repo);
      if (auto done = repo.commit(req); !done)
        repl::log_line("the record of an edit run was not committed: " + done.error().message);
    });
    if (!queued) repl::log_line("the record of an edit run was not committed: " + queued.error().message);
  }
  recorded_ = true;
  std::string line = std::string(door) + ", agent " + params_.agent + ", session " + ran.session +
                     (params_.dry_run ? " (dry run)" : "") + ": " + record::counts(ran.blocks);
  if (ran.commit) line += ", committed " + ran.commit->substr(0, 12);
  if (ran.commit_error) line += ", commit failed: " + *ran.commit_error;
  if (cut) line += " (cut off: " + std::string(to_string(*cut)) + ")";
  repl::log_line(line);
}

}  // namespace services
