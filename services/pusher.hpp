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

#include <boost/json/object.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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
  Pusher(std::unique_ptr<editgit::Repository> repo, std::string root, std::string remote, Report report,
         Schedule schedule, int stop_read, int stop_write);
  void loop();
  // When the next push is due; nullopt: nothing to do until woken. Under mutex_.
  std::optional<std::chrono::steady_clock::time_point> due() const;
  // One push, on the pusher's thread, without mutex_. `forced`: even when
  // HEAD is the commit pushed last (the push op asks the remote). `last`:
  // the one at stop, bounded by `last_push` rather than stopped by finish().
  PushOutcome push_once(bool forced, bool last);
  // After a push: what the schedule does next, and "retry_in_ms". Under mutex_.
  void reschedule(PushOutcome& outcome);

  std::unique_ptr<editgit::Repository> repo_;  // the pusher's thread only
  const std::string root_;
  const std::string remote_;  // as given: what the push child is told
  const std::string shown_;   // without a URL's credentials: what is reported
  const Report report_;
  const Schedule schedule_;
  std::string pushed_;  // the branch's and the REPL ref's commits the last push carried; the thread only

  // Guards the schedule below: the commit queue's thread and the push ops
  // (network thread) wake the pusher's thread through wake_.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;  // commits not pushed yet (as far as is known)
  std::chrono::steady_clock::time_point first_pending_, last_commit_;
  std::optional<std::chrono::steady_clock::time_point> retry_at_;
  int failures_ = 0;   // unreachable in a row
  bool gave_up_ = false;  // `attempts` failures: waiting for a commit or the op
  std::vector<Done> waiting_;
  bool stopping_ = false;   // stop(): no push starts
  bool finishing_ = false;  // finish(): the last push, then the thread ends
  // finish() writes to the one end; the push under way is killed when the
  // other becomes readable.
  const int stop_read_, stop_write_;
  std::thread thread_;
};

}  // namespace services
