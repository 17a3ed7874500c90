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
      stop_write_(stop_write) {
  // What was committed before the gateway started is pushed too, once.
  pending_ = true;
  first_pending_ = last_commit_ = Clock::now();
  thread_ = std::thread([this] { loop(); });
}

Pusher::~Pusher() {
  finish();
  ::close(stop_read_);
  ::close(stop_write_);
}

void Pusher::committed() {
  {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    if (!pending_) first_pending_ = now;
    pending_ = true;
    last_commit_ = now;
    if (gave_up_) {
      // Something new to push: the retries start afresh.
      gave_up_ = false;
      failures_ = 0;
    }
  }
  wake_.notify_one();
}

Result<void> Pusher::push_now(Done done) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return stopping();
    if (waiting_.size() >= max_waiting)
      return Failure{Error::too_many_requests,
                     std::to_string(max_waiting) + " push requests wait already; each gets the next push's outcome"};
    waiting_.push_back(std::move(done));
  }
  wake_.notify_one();
  return {};
}

void Pusher::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  // The push under way, if any, is killed (the stop pipe stays readable).
  const char byte = 0;
  [[maybe_unused]] const ssize_t ignored = ::write(stop_write_, &byte, 1);
  wake_.notify_one();
}

void Pusher::finish() {
  stop();
  {
    std::lock_guard lock(mutex_);
    if (finishing_ && !thread_.joinable()) return;
    finishing_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::optional<Clock::time_point> Pusher::due() const {
  if (!waiting_.empty()) return Clock::now();
  if (retry_at_) return retry_at_;
  if (pending_ && !gave_up_) return std::min(last_commit_ + schedule_.quiet, first_pending_ + schedule_.at_most);
  return std::nullopt;
}

void Pusher::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (finishing_) {
      // Once more, what is committed and not pushed (a retry pending, or
      // commits since the last push): one attempt, reported.
      const bool last = pending_ || retry_at_;
      std::vector<Done> waiting = std::move(waiting_);
      lock.unlock();
      if (last || !waiting.empty()) {
        PushOutcome outcome = push_once(!waiting.empty(), true);
        if (outcome.failure || !outcome.body.contains("skipped")) report_(outcome);
        for (Done& d : waiting) d(outcome);
      }
      return;
    }
    if (stopping_) {
      // No push starts until finish(); push ops still waiting hear why.
      std::vector<Done> waiting = std::move(waiting_);
      waiting_.clear();
      if (waiting.empty()) {
        wake_.wait(lock);
        continue;
      }
      lock.unlock();
      PushOutcome outcome;
      outcome.body["remote"] = shown_;
      outcome.failure = stopping();
      for (Done& d : waiting) d(outcome);
      lock.lock();
      continue;
    }
    const auto when = due();
    if (!when) {
      wake_.wait(lock);
      continue;
    }
    if (Clock::now() < *when) {
      wake_.wait_until(lock, *when);
      continue;  // woken early: a commit, an op, the end; what is due is asked again
    }
    std::vector<Done> waiting = std::move(waiting_);
    waiting_.clear();
    pending_ = false;  // commits from now on are the next push's
    retry_at_.reset();
    lock.unlock();
    PushOutcome outcome = push_once(!waiting.empty(), false);
    lock.lock();
    reschedule(outcome);
    lock.unlock();
    // A push killed as the gateway stops is not reported: the last push says
    // what became of its commits.
    const bool killed = outcome.failure && outcome.failure->code == Error::shutting_down;
    if (!killed && (outcome.failure || !outcome.body.contains("skipped"))) report_(outcome);
    for (Done& d : waiting) d(outcome);
    lock.lock();
  }
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
