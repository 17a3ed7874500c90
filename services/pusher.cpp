#include "services/pusher.hpp"

#include "services/push_child.hpp"
#include "git/redact.hpp"
#include "record/repl_ref.hpp"
#include "git/repository.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace services {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// HEAD's commit and the REPL ref's, as the pusher's handle reads them: what
// a push carries.
std::string pushed_state(editgit::Repository& repo) {
  auto head = repo.ref_tip("HEAD");
  auto repl = repo.ref_tip(record::repl_ref(repo));
  return (head ? *head : std::string()) + " " + (repl ? *repl : std::string());
}

Failure stopping() { return {Error::shutting_down, "the gateway is stopping: it pushes once more as it ends"}; }

}  // namespace

Result<std::unique_ptr<Pusher>> Pusher::open(const std::string& root, std::string remote, Report report,
                                             Schedule schedule) {
  if (editgit::carries_credentials(remote))
    return Failure{Error::bad_request,
                   editgit::redact_urls(remote) +
                       " carries credentials, which anyone on this machine could read in the gateway's command line; "
                       "give the URL without them and put them in EDITGATE_PUSH_USERNAME and EDITGATE_PUSH_PASSWORD "
                       "(a password or token), or configure a remote in the repository (`git remote add NAME URL`: "
                       "libgit2 reads its URL from .git/config) and push to its name, or use ssh with a running "
                       "ssh-agent"};
  auto repo = editgit::Repository::open(root, {}, false);
  if (!repo) return Failure{Error::io, repo.error().message};
  int stop[2];
  if (::pipe2(stop, O_CLOEXEC | O_NONBLOCK) != 0)
    return Failure{Error::io, std::string("cannot start the pusher: ") + std::strerror(errno)};
  return std::unique_ptr<Pusher>(new Pusher(std::make_unique<editgit::Repository>(std::move(*repo)), root,
                                            std::move(remote), std::move(report), schedule, stop[0], stop[1]));
}

Pusher::Pusher(std::unique_ptr<editgit::Repository> repo, std::string root, std::string remote, Report report,
               Schedule schedule, int stop_read, int stop_write)
    : repo_(std::move(repo)),
      root_(std::move(root)),
      remote_(std::move(remote)),
      shown_(editgit::redact_urls(remote_)),
      report_(std::move(report)),
      schedule_(schedule),
      stop_read_(stop_read),
      stop_write_(stop_write),
      loop_({.name = "eg-pusher", .bound = max_waiting},
            [this](std::vector<Note>& notes, bool last) { return step(notes, last); }) {
  // What was committed before the gateway started is pushed too, once.
  loop_.wake();
}

Pusher::~Pusher() {
  finish();
  ::close(stop_read_);
  ::close(stop_write_);
}

void Pusher::committed() {
  const auto now = Clock::now();
  // Commits take no room (weight 0): those in a row are one note.
  auto joined = loop_.join_last([](const Note& n) { return !n.done; }, [&](Note& n) { n.last = now; }, 0);
  if (joined && !*joined) (void)loop_.post({{}, now, now}, 0);  // refused: finished, nothing pushes any more
}

Result<void> Pusher::push_now(Done done) {
  if (stopping_) return stopping();
  auto posted = loop_.post({std::move(done), {}, {}});
  if (posted) return {};
  if (posted.error() == editgit::Refused::stopped) return stopping();
  return Failure{Error::too_many_requests,
                 std::to_string(max_waiting) + " push requests wait already; each gets the next push's outcome"};
}

void Pusher::stop() {
  if (stopping_.exchange(true)) return;
  // The push under way, if any, is killed (the stop pipe stays readable).
  const char byte = 0;
  [[maybe_unused]] const ssize_t ignored = ::write(stop_write_, &byte, 1);
  loop_.wake();  // the push ops waiting hear why at once
}

void Pusher::finish() {
  stop();
  loop_.stop(editgit::OnStop::drain);
}

std::optional<Clock::time_point> Pusher::due() const {
  if (stopping_) return std::nullopt;  // no push starts until the last one
  if (!waiting_.empty()) return Clock::now();
  if (retry_at_) return retry_at_;
  if (pending_ && !gave_up_) return std::min(last_commit_ + schedule_.quiet, first_pending_ + schedule_.at_most);
  return std::nullopt;
}

std::optional<Clock::time_point> Pusher::step(std::vector<Note>& notes, bool last) {
  for (Note& n : notes) {
    if (n.done) {
      waiting_.push_back(std::move(n.done));
      continue;
    }
    if (!pending_) first_pending_ = n.first;
    pending_ = true;
    last_commit_ = n.last;
    if (gave_up_) {
      // Something new to push: the retries start afresh.
      gave_up_ = false;
      failures_ = 0;
    }
  }
  if (last) {
    last_push();
    return std::nullopt;
  }
  if (stopping_) {
    // No push starts until finish(); push ops still waiting hear why.
    PushOutcome outcome;
    outcome.body["remote"] = shown_;
    outcome.failure = stopping();
    for (Done& d : std::exchange(waiting_, {})) d(outcome);
    return std::nullopt;
  }
  const auto when = due();
  if (!when || Clock::now() < *when) return when;
  std::vector<Done> waiting = std::exchange(waiting_, {});
  pending_ = false;  // commits from now on are the next push's
  retry_at_.reset();
  PushOutcome outcome = push_once(!waiting.empty(), false);
  reschedule(outcome);
  // A push killed as the gateway stops is not reported: the last push says
  // what became of its commits.
  const bool killed = outcome.failure && outcome.failure->code == Error::shutting_down;
  if (!killed && (outcome.failure || !outcome.body.contains("skipped"))) report_(outcome);
  for (Done& d : waiting) d(outcome);
  return due();
}

void Pusher::last_push() {
  // Once more, what is committed and not pushed (a retry pending, or
  // commits since the last push): one attempt, reported.
  std::vector<Done> waiting = std::exchange(waiting_, {});
  if (!pending_ && !retry_at_ && waiting.empty()) return;
  PushOutcome outcome = push_once(!waiting.empty(), true);
  if (outcome.failure || !outcome.body.contains("skipped")) report_(outcome);
  for (Done& d : waiting) d(outcome);
}

void Pusher::reschedule(PushOutcome& outcome) {
  if (!outcome.failure) {
    failures_ = 0;
    gave_up_ = false;
    return;
  }
  if (outcome.failure->code == Error::shutting_down) {
    // Killed as the gateway stops: the last push carries its commits.
    pending_ = true;
    return;
  }
  if (outcome.failure->code != Error::remote_unreachable && outcome.failure->code != Error::remote_timeout) {
    // A refusal or a bad remote: trying again changes nothing until
    // something new is committed (or the op asks).
    failures_ = 0;
    return;
  }
  // Not reached: the commits stay to push, after a back-off.
  pending_ = true;
  if (++failures_ >= schedule_.attempts) {
    gave_up_ = true;
    return;
  }
  auto wait = schedule_.first_retry;
  for (int i = 1; i < failures_ && wait < schedule_.longest_retry; ++i) wait *= 2;
  wait = std::min(wait, schedule_.longest_retry);
  retry_at_ = Clock::now() + wait;
  outcome.body["retry_in_ms"] = wait.count();
  outcome.body["attempt"] = failures_;
}

PushOutcome Pusher::push_once(bool forced, bool last) {
  PushOutcome outcome;
  outcome.body["remote"] = shown_;
  const std::string state = pushed_state(*repo_);
  if (!forced && !pushed_.empty() && state == pushed_) {
    // Nothing new since the last push (the queue's work was no commit).
    outcome.body["skipped"] = true;
    return outcome;
  }
  ChildLimits limits{schedule_.timeout};
  if (last) limits.until = Clock::now() + schedule_.last_push;
  else limits.stop_fd = stop_read_;
  auto pushed = push_in_child(root_, remote_, limits);
  if (!pushed) {
    outcome.failure = Failure{pushed.error().code, editgit::redact_urls(pushed.error().message)};
    return outcome;
  }
  for (const char* key : {"ref", "commit", "previous", "up_to_date", "also", "also_error"})
    if (const json::value* v = pushed->if_contains(key)) outcome.body[key] = *v;
  pushed_ = state;
  return outcome;
}

}  // namespace services
