#include "record/run_driver.hpp"

#include "record/run_commit.hpp"

#include <span>

namespace record {

RunDriver::RunDriver(const editproto::Workspace& ws, RunParams params, Mode mode, std::optional<std::string> gitdir,
                     BlockHooks hooks)
    : ws_(ws), params_(std::move(params)), mode_(mode), hooks_(std::move(hooks)), applier_(ws, options()),
      parser_(limits_) {
  // A dry run writes nothing, so it has nothing to journal.
  if (gitdir && !params_.dry_run) journal_.emplace(std::move(*gitdir), params_.agent, params_.session);
  report_.dry_run = params_.dry_run;
  report_.session = params_.session;
}

editproto::Options RunDriver::options() {
  editproto::Options opt;
  opt.dry_run = params_.dry_run;
  opt.fuzz_whitespace = params_.fuzz_whitespace;
  opt.option_syntax = params_.option_syntax;
  opt.context = params_.context;
  limits_ = opt.limits;
  // Every write is named in the journal first; journal_ is set once the
  // constructor has run, before anything can be written.
  if (!opt.dry_run)
    opt.on_write = [this](const std::string& path, const std::string* base, std::span<const std::string_view> bytes) {
      if (journal_) journal_->writing(path, base, bytes);
    };
  return opt;
}

editgit::Result<void> RunDriver::commit_interrupted(const CommitWith& commit) {
  editgit::Result<std::vector<Interrupted>> found = std::vector<Interrupted>{};
  auto done = commit([&](editgit::Repository& repo) { found = record::commit_interrupted(ws_, repo); });
  if (!done) return done.error();
  if (!found) return found.error();
  report_.interrupted = std::move(*found);
  return {};
}

void RunDriver::take_warnings() {
  for (editproto::Warning& w : parser_.take_warnings()) report_.warnings.push_back(std::move(w));
}

std::vector<editproto::BlockResult> RunDriver::apply(std::vector<editproto::Block>& blocks) {
  std::vector<editproto::BlockResult> out;
  auto take = [&](std::vector<editproto::BlockResult> results) {
    for (editproto::BlockResult& r : results) {
      report_.blocks.push_back(r);
      if (hooks_.after) hooks_.after(report_.blocks.back());
      out.push_back(std::move(r));
    }
  };
  if (mode_ == Mode::whole) applier_.prepare(blocks);
  for (const editproto::Block& b : blocks) {
    if (hooks_.before) hooks_.before(b);
    applier_.submit(b);
    // Streamed, a flush per block writes its file now: the block is applied
    // whatever happens to the rest of the stream.
    if (mode_ == Mode::streamed) take(applier_.flush());
  }
  if (mode_ == Mode::whole) take(applier_.flush());
  report_.files_auto_added = applier_.files_auto_added();
  return out;
}

std::vector<editproto::BlockResult> RunDriver::feed(std::string_view chunk) {
  bytes_ += chunk.size();
  if (bytes_ > limits_.max_response_bytes) overflowed_ = true;
  std::vector<editproto::Block> blocks;
  parser_.feed(chunk, mode_ == Mode::whole ? waiting_ : blocks);
  take_warnings();
  if (mode_ == Mode::whole) return {};
  return apply(blocks);
}

std::vector<editproto::BlockResult> RunDriver::finish() {
  std::vector<editproto::Block> blocks = std::move(waiting_);
  waiting_.clear();
  parser_.finish(blocks);
  take_warnings();
  return apply(blocks);
}

void RunDriver::commit(const CommitWith& commit) {
  if (params_.dry_run) return;
  RunReport part;
  part.session = report_.session;
  part.blocks.assign(report_.blocks.begin() + static_cast<std::ptrdiff_t>(blocks_committed_), report_.blocks.end());
  blocks_committed_ = report_.blocks.size();
  // `commit` may run this on another thread while this one waits: the
  // applier and the report are touched by one thread at a time.
  auto done = commit([&](editgit::Repository& repo) { record_edits(repo, applier_, part, params_.agent); });
  if (!done) part.commit_error = std::string(editgit::to_string(done.error().code)) + ": " + done.error().message;
  if (!part.commit_error && journal_) journal_->committed();
  if (part.commit) report_.commit = part.commit;
  report_.commits.insert(report_.commits.end(), part.commits.begin(), part.commits.end());
  if (part.earlier_commit) report_.earlier_commit = part.earlier_commit;
  report_.files_not_committed.insert(report_.files_not_committed.end(), part.files_not_committed.begin(),
                                     part.files_not_committed.end());
  if (part.commit_error && !report_.commit_error) report_.commit_error = part.commit_error;
  if (!part.commit_warning.empty()) report_.commit_warning = part.commit_warning;
}

}  // namespace record
