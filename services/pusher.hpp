// `editgate serve --push REMOTE`: the workspace's branch pushed to REMOTE
// after commits settle, on a thread of its own, so a slow or dead remote
// never delays a commit or a reply. Each push runs in a child process
// (services/push_child.hpp), killed when the remote says nothing for
// `timeout`, or at once when the gateway stops.
//
// When: the commit queue's observer (committed()) only notes the time; the
// push starts once no commit has come for `quiet`, or `at_most` after the
// first commit not pushed while commits keep coming. One push carries every
// commit made so far. A push that cannot reach the remote, or that it left
// unanswered, is tried again after a back-off that doubles from
// `first_retry` up to `longest_retry`, `attempts` times in a row at most;
// then the pusher waits for the next commit or push op, which starts the
// schedule afresh. A refusal (the remote's branch moved on, or its
// credentials) is reported and never forced or retried until something new
// is committed. Each outcome goes to `report`, on the pusher's thread: serve
// logs it and the dashboard's `watch` gets it. What is reported names the
// remote without a URL's credentials (git/redact.hpp).
#pragma once

#include "services/error.hpp"
#include "git/worker_loop.hpp"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace editgit {
class Repository;
}

namespace services {

// What one push did: `body` names the remote, the branch ("ref"), the
// commit the remote's branch holds now, the one it held before
// ("previous", absent when the push made the branch) and "up_to_date";
// after a failure, `failure` and in `body` the remote and, when it will be
// tried again, "retry_in_ms".
struct PushOutcome {
  std::optional<Failure> failure;
  boost::json::object body;
};

class Pusher {
 public:
  struct Schedule {
    std::chrono::milliseconds quiet{300};
    std::chrono::milliseconds at_most{3000};
    std::chrono::milliseconds first_retry{250};
    std::chrono::milliseconds longest_retry{30'000};
    int attempts = 20;
    std::chrono::milliseconds timeout{30'000};   // a push's longest silence from the remote
    std::chrono::milliseconds last_push{2'000};  // the last push, at stop, ends by then
  };
  // Push ops waiting for the push in progress: past it, too_many_requests.
  static constexpr std::size_t max_waiting = 64;

  using Report = std::function<void(const PushOutcome&)>;
  using Done = std::function<void(const PushOutcome&)>;

  // Opens the repository of `root` for the pusher's thread and starts it.
  // `remote`: a remote's name in that repository, or a URL or path;
  // bad_request for a URL that carries a password (it shows in the process
  // list: editgit::carries_credentials).
  static Result<std::unique_ptr<Pusher>> open(const std::string& root, std::string remote, Report report,
                                              Schedule schedule);
  // finish(), then gone.
  ~Pusher();
  Pusher(const Pusher&) = delete;
  Pusher& operator=(const Pusher&) = delete;

  // Something was committed: any thread, and quick (the commit queue's
  // thread calls it after each piece of work).
  void committed();
  // Pushes now, whatever the schedule says; `done` gets the outcome on the
  // pusher's thread. too_many_requests past max_waiting, shutting_down
  // once stopping.
  Result<void> push_now(Done done);
  // The gateway is stopping: kills the push under way, and answers its push
  // ops and those waiting shutting_down, at once; no push starts until
  // finish(). Any thread, quick.
  void stop();
  // stop(), then pushes once more what is committed and not pushed yet (one
  // attempt of at most `last_push`, reported), and ends the thread. Call
  // after the last commit is made.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  // What the pusher's thread is told: commits (no `done`; those noted one
  // after another coalesce, first and last time kept), or a push op.
  struct Note {
    Done done;
    Clock::time_point first, last;
  };

  Pusher(std::unique_ptr<editgit::Repository> repo, std::string root, std::string remote, Report report,
         Schedule schedule, int stop_read, int stop_write);
  // On the pusher's thread: takes in the notes, pushes when due, and says
  // when the next push is due.
  std::optional<Clock::time_point> step(std::vector<Note>& notes, bool last);
  // The last push, at finish(): what is committed and not pushed yet.
  void last_push();
  // When the next push is due; nullopt: nothing to do until told.
  std::optional<Clock::time_point> due() const;
  // One push, without a lock. `forced`: even when HEAD is the commit pushed
  // last (the push op asks the remote). `last`: the one at finish, bounded
  // by `last_push` rather than stopped by stop().
  PushOutcome push_once(bool forced, bool last);
  // After a push: what the schedule does next, and "retry_in_ms".
  void reschedule(PushOutcome& outcome);

  std::unique_ptr<editgit::Repository> repo_;
  const std::string root_;
  const std::string remote_;  // as given: what the push child is told
  const std::string shown_;   // without a URL's credentials: what is reported
  const Report report_;
  const Schedule schedule_;
  std::atomic<bool> stopping_{false};  // stop(): push ops refused, no push starts
  // stop() writes to the one end; the push under way is killed when the
  // other becomes readable.
  const int stop_read_, stop_write_;

  // The schedule: the pusher's thread only (what other threads tell it
  // comes as notes).
  std::string pushed_;  // the branch's and the REPL ref's commits the last push carried
  bool pending_ = true;  // commits not pushed yet (as far as is known); at start, what came before
  Clock::time_point first_pending_ = Clock::now(), last_commit_ = first_pending_;
  std::optional<Clock::time_point> retry_at_;
  int failures_ = 0;      // unreachable in a row
  bool gave_up_ = false;  // `attempts` failures: waiting for a commit or the op
  std::vector<Done> waiting_;  // push ops taken in, answered by the next push

  editgit::WorkerLoop<Note> loop_;  // last: its thread uses what is above
};

}  // namespace services
