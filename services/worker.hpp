// The gateway's worker: the workspace side of the gateway, the edit engine's Workspace and a git
// Repository for reading, used from one thread of their own, and the
// workspace's one commit queue (a thread of its own, git/commit_queue.hpp),
// through which every commit is made: the edit runs' and the REPL's.
// Network connections hand the worker work and get the result back on their
// strand, so file writes and commits never stall the sockets, and edits
// reach the workspace in arrival order.
#pragma once

#include "editproto/workspace.hpp"
#include "services/edit_run.hpp"
#include "services/error.hpp"
#include "git/commit_queue.hpp"
#include "git/repository.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <memory>
#include <string>
#include <thread>
#include <utility>

namespace services {

class Worker {
 public:
  // Opens the workspace and its repository (creating one when there is
  // none) and starts the thread.
  static Result<std::unique_ptr<Worker>> open(const std::string& root);

  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  const editproto::Workspace& workspace() const { return ws_; }
  // Only on the worker thread: for reading (commits go to commits()).
  editgit::Repository& repository() { return repo_; }
  // The workspace's commit queue: any thread may submit.
  editgit::CommitQueue& commits() { return *commits_; }
  Owners& owners() { return owners_; }
  EditHooks& hooks() { return hooks_; }
  // The recent edit runs (the runs and show ops). Only on the worker thread.
  RunRing& runs() { return runs_; }
  // A new edit run on this workspace: the one place runs are made (both
  // doors and the inbox). Only on the worker thread.
  Result<std::unique_ptr<EditRun>> start_run(EditParams params) {
    return EditRun::start(ws_, repo_, owners_, hooks_, std::move(params));
  }
  // The worker thread's executor (the REPL's timers run on it).
  boost::asio::io_context::executor_type executor() { return ctx_.get_executor(); }

  // Runs `work()` on the worker thread, then `done(result)` on `ex`. `ex`
  // counts as busy until then, so its io_context does not run dry meanwhile.
  template <class Executor, class Work, class Done>
  void run(const Executor& ex, Work work, Done done) {
    boost::asio::post(ctx_, [ex, guard = boost::asio::make_work_guard(ex), work = std::move(work),
                             done = std::move(done)]() mutable {
      auto result = work();
      boost::asio::post(ex, [result = std::move(result), done = std::move(done)]() mutable {
        done(std::move(result));
      });
    });
  }

  // Runs `work()` on the worker thread, reporting to nobody.
  template <class Work>
  void post(Work work) {
    boost::asio::post(ctx_, std::move(work));
  }

  // Finishes the work queued so far and stops the thread, then the commit
  // queue once it has made the commits queued.
  void join();

 private:
  Worker(editproto::Workspace ws, editgit::Repository repo, std::unique_ptr<editgit::CommitQueue> commits);

  editproto::Workspace ws_;
  editgit::Repository repo_;
  Owners owners_;
  EditHooks hooks_;
  RunRing runs_;
  std::unique_ptr<editgit::CommitQueue> commits_;  // outlives the thread, whose work submits to it
  boost::asio::io_context ctx_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::thread thread_;
};

}  // namespace services
