#include "services/edit_run.hpp"

#include "record/commit_messages.hpp"
#include "record/identity.hpp"
#include "record/repl_ref.hpp"
#include "record/run_commit.hpp"
#include "repl/log.hpp"

#include <boost/json.hpp>

namespace services {

namespace {

editproto::Options options_for(const EditParams& p) {
  editproto::Options opt;
  opt.dry_run = p.dry_run;
  opt.fuzz_whitespace = p.fuzz_whitespace;
  opt.context = p.context;
  return opt;
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
  std::vector<record::Interrupted> left;
  if (!params.dry_run) {
    if (auto ready = repo.ready_to_commit(); !ready)
      return Failure{ready.error().code == editgit::Error::locked ? Error::locked : Error::conflict,
                     ready.error().message};
    // Files an earlier run wrote and never committed are its agent's: they
    // are committed before this run writes anything.
    editgit::Result<std::vector<record::Interrupted>> found = left;
    auto queued = hooks.commit ? hooks.commit([&](editgit::Repository& r) { found = record::commit_interrupted(ws, r); })
                               : editgit::Result<void>();
    if (queued && !found) queued = found.error();
    if (!queued)
      return Failure{queued.error().code == editgit::Error::locked ? Error::locked : Error::commit_failed,
                     "cannot commit what an interrupted run left: " + queued.error().message};
    left = std::move(*found);
  }
  editproto::Options opt = options_for(params);
  std::string gitdir = repo.gitdir();
  auto run = std::unique_ptr<EditRun>(new EditRun(ws, owners, hooks, std::move(params), std::move(opt), gitdir));
  run->report_.interrupted = std::move(left);
  return run;
}

EditRun::EditRun(const editproto::Workspace& ws, Owners& owners, const EditHooks& hooks, EditParams params,
                 editproto::Options opt, const std::string& gitdir)
    : ws_(ws), owners_(owners), hooks_(hooks), params_(std::move(params)), limits_(opt.limits),
      session_(params_.session.empty() ? record::new_session_id() : params_.session),
      journal_(gitdir, params_.agent, session_), applier_(ws, with_journal(std::move(opt))), parser_(limits_) {
  report_.dry_run = params_.dry_run;
  report_.session = session_;
}

editproto::Options EditRun::with_journal(editproto::Options opt) {
  if (!opt.dry_run)
    opt.on_write = [this](const std::string& path, const std::string* base, std::span<const std::string_view> bytes) {
      journal_.writing(path, base, bytes);
    };
  return opt;
}

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

std::vector<editproto::BlockResult> EditRun::apply(std::vector<editproto::Block>& blocks) {
  std::vector<editproto::BlockResult> out;
  for (const editproto::Block& b : blocks) {
    if (!params_.dry_run && b.ok()) claim(b.path);
    applier_.submit(b);
    // Flushing per block writes its file now: a block is applied the moment
    // it is complete, whatever happens to the rest of the stream.
    for (editproto::BlockResult& r : applier_.flush()) {
      report_.blocks.push_back(r);
      const bool wrote = r.status == editproto::Status::applied && !params_.dry_run;
      const std::string path = r.path;
      out.push_back(std::move(r));
      // The REPL may commit this block's change (it is in report_ already)
      // before it answers a request the block appended.
      if (wrote && hooks_.written) hooks_.written(path, params_.agent);
    }
  }
  return out;
}

std::vector<editproto::BlockResult> EditRun::feed(std::string_view chunk) {
  std::vector<editproto::Block> blocks;
  bytes_ += chunk.size();
  if (bytes_ > limits_.max_response_bytes) overflowed_ = true;
  parser_.feed(chunk, blocks);
  take_warnings();
  return apply(blocks);
}

std::vector<editproto::BlockResult> EditRun::finish() {
  std::vector<editproto::Block> blocks;
  parser_.finish(blocks);
  take_warnings();
  return apply(blocks);
}

void EditRun::take_warnings() {
  for (editproto::Warning& w : parser_.take_warnings()) report_.warnings.push_back(std::move(w));
}

void EditRun::commit_pending() {
  std::erase_if(owners_, [this](const auto& entry) { return entry.second == this; });
  if (params_.dry_run) return;
  record::RunReport part;
  part.session = report_.session;
  part.blocks.assign(report_.blocks.begin() + static_cast<std::ptrdiff_t>(blocks_committed_), report_.blocks.end());
  blocks_committed_ = report_.blocks.size();
  // On the commit queue's thread, while this one waits: the applier and
  // the report are touched by one thread at a time.
  auto queued = hooks_.commit ? hooks_.commit([&](editgit::Repository& repo) {
    record::record_edits(repo, applier_, part, params_.agent);
  }) : editgit::Result<void>(editgit::Failure{editgit::Error::invalid, "no commit queue"});
  if (!queued) part.commit_error = std::string(editgit::to_string(queued.error().code)) + ": " + queued.error().message;
  if (queued && !part.commit_error) journal_.committed();
  if (part.commit) report_.commit = part.commit;
  report_.commits.insert(report_.commits.end(), part.commits.begin(), part.commits.end());
  if (part.earlier_commit) report_.earlier_commit = part.earlier_commit;
  report_.files_not_committed.insert(report_.files_not_committed.end(), part.files_not_committed.begin(),
                                     part.files_not_committed.end());
  if (part.commit_error && !report_.commit_error) report_.commit_error = part.commit_error;
  if (!part.commit_warning.empty()) report_.commit_warning = part.commit_warning;
}

const record::RunReport& EditRun::commit() {
  if (committed_) return report_;
  committed_ = true;
  report_.files_auto_added = applier_.files_auto_added();
  commit_pending();
  return report_;
}

void EditRun::log(std::string_view door, std::optional<Error> cut) {
  if (hooks_.runs && !recorded_) hooks_.runs->record(report_, RunEnd{std::string(door), params_.agent, started_, cut});
  // What the branch does not hold whole goes on the record on the REPL's
  // ref, so a restart keeps it: a dry run, a block that did not apply, a
  // commit that failed.
  const bool whole = !params_.dry_run && record::all_ok(report_) && !report_.commit_error;
  if (hooks_.submit && !recorded_ && !whole && !report_.blocks.empty()) {
    auto report = std::make_shared<record::RunReport>(report_);
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
  std::string line = std::string(door) + ", agent " + params_.agent + ", session " + report_.session +
                     (params_.dry_run ? " (dry run)" : "") + ": " + record::counts(report_.blocks);
  if (report_.commit) line += ", committed " + report_.commit->substr(0, 12);
  if (report_.commit_error) line += ", commit failed: " + *report_.commit_error;
  if (cut) line += " (cut off: " + std::string(to_string(*cut)) + ")";
  repl::log_line(line);
}

}  // namespace services
