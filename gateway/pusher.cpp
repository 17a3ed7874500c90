#include "gateway/pusher.hpp"

#include "gateway/op_handlers.hpp"
#include "git/repository.hpp"

#include <algorithm>

namespace gateway {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// HEAD's commit as the pusher's handle reads it; "" when there is none.
std::string head_commit(editgit::Repository& repo) {
  auto head = repo.history([](const editgit::CommitInfo&) { return true; }, 1);
  return head && !head->empty() ? head->front().id : std::string();
}

}  // namespace

Result<std::unique_ptr<Pusher>> Pusher::open(const std::string& root, std::string remote, Report report,
                                             Schedule schedule) {
  auto repo = editgit::Repository::open(root, {}, false);
  if (!repo) return Failure{Error::io, repo.error().message};
  return std::unique_ptr<Pusher>(new Pusher(std::make_unique<editgit::Repository>(std::move(*repo)),
                                            std::move(remote), std::move(report), schedule));
}

Pusher::Pusher(std::unique_ptr<editgit::Repository> repo, std::string remote, Report report, Schedule schedule)
    : repo_(std::move(repo)), remote_(std::move(remote)), report_(std::move(report)), schedule_(schedule) {
  // What was committed before the gateway started is pushed too, once.
  pending_ = true;
  first_pending_ = last_commit_ = Clock::now();
  thread_ = std::thread([this] { loop(); });
}

Pusher::~Pusher() { finish(); }

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
    if (finishing_) return Failure{Error::shutting_down, "the gateway is stopping; its last push is under way"};
    if (waiting_.size() >= max_waiting)
      return Failure{Error::too_many_requests,
                     std::to_string(max_waiting) + " push requests wait already; each gets the next push's outcome"};
    waiting_.push_back(std::move(done));
  }
  wake_.notify_one();
  return {};
}

void Pusher::finish() {
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
        PushOutcome outcome = push_once(!waiting.empty());
        if (outcome.failure || !outcome.body.contains("skipped")) report_(outcome);
        for (Done& d : waiting) d(outcome);
      }
      return;
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
    PushOutcome outcome = push_once(!waiting.empty());
    lock.lock();
    reschedule(outcome);
    lock.unlock();
    if (outcome.failure || !outcome.body.contains("skipped")) report_(outcome);
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
  if (outcome.failure->code != Error::remote_unreachable) {
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

PushOutcome Pusher::push_once(bool forced) {
  PushOutcome outcome;
  outcome.body["remote"] = remote_;
  if (!forced && !pushed_.empty() && head_commit(*repo_) == pushed_) {
    // Nothing new since the last push (the queue's work was no commit).
    outcome.body["skipped"] = true;
    return outcome;
  }
  auto pushed = repo_->push({remote_});
  if (!pushed) {
    outcome.failure = Failure{from_git(pushed.error().code), pushed.error().message};
    return outcome;
  }
  pushed_ = pushed->commit;
  outcome.body["ref"] = pushed->ref;
  outcome.body["commit"] = pushed->commit;
  if (pushed->previous) outcome.body["previous"] = *pushed->previous;
  outcome.body["up_to_date"] = pushed->up_to_date;
  return outcome;
}

}  // namespace gateway
