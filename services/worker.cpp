#include "services/worker.hpp"

#include <pthread.h>

#include "record/repl_ref.hpp"
#include "repl/log.hpp"

namespace services {

Result<std::unique_ptr<Worker>> Worker::open(const std::string& root) {
  auto ws = editproto::Workspace::open(root);
  if (!ws) return Failure{Error::io, ws.error().detail};
  auto repo = editgit::Repository::open(ws->root());
  if (!repo) return Failure{Error::io, repo.error().message};
  // The registry of connected pages is a live view, not history.
  if (auto ex = repo->exclude("/" + repo->prefix() + "debug.md"); !ex) return Failure{Error::io, ex.error().message};
  // The REPL's history stands beside the branch (record/repl_ref.hpp).
  if (auto aside = record::move_repl_aside(*repo); !aside)
    repl::log_line("the chat logs stay tracked on the branch until the next start: " + aside.error().message);
  else if (aside->untracked)
    repl::log_line("the chat logs (" + std::to_string(aside->paths.size()) +
                   " files of debug/ and debug-archive/) left the branch in commit " +
                   aside->untracked->substr(0, 12) + "; the REPL's history goes on at " + aside->ref);
  auto commits = editgit::CommitQueue::open(ws->root());
  if (!commits) return Failure{Error::io, commits.error().message};
  return std::unique_ptr<Worker>(new Worker(std::move(*ws), std::move(*repo), std::move(*commits)));
}

Worker::Worker(editproto::Workspace ws, editgit::Repository repo, std::unique_ptr<editgit::CommitQueue> commits)
    : ws_(std::move(ws)),
      repo_(std::move(repo)),
      commits_(std::move(commits)),
      guard_(ctx_.get_executor()),
      thread_([this] {
        ::pthread_setname_np(::pthread_self(), "eg-worker");  // named in top, perf and the benches
        ctx_.run();
      }) {
  hooks_.runs = &runs_;
  hooks_.commit = [this](const editgit::CommitQueue::Work& work) { return commits_->run(work); };
  hooks_.submit = [this](editgit::CommitQueue::Work work) { return commits_->submit(std::move(work)); };
}

Worker::~Worker() { join(); }

void Worker::join() {
  // The commits still queued post what follows them (markers, chat history)
  // to this thread: it waits for them before it runs out of work.
  if (thread_.joinable()) boost::asio::post(ctx_, [this] { commits_->wait_idle(); });
  guard_.reset();
  if (thread_.joinable()) thread_.join();
  commits_->stop();
}

}  // namespace services
