#include "git/pack_thread.hpp"

#include <algorithm>

namespace editgit {

Result<std::unique_ptr<PackThread>> PackThread::start(const std::string& gitdir, PackThreadOptions options) {
  std::unique_ptr<PackThread> t(new PackThread(std::move(options)));
  t->opt_.packer.stop = &t->stopping_;
  auto packer = Packer::open(gitdir, t->opt_.packer);
  if (!packer) return packer.error();
  t->packer_.emplace(std::move(*packer));
  // A low priority for this thread alone: a pack runs mostly on what the
  // exchanges leave, yet at 10 it still gets about a tenth of a core that a
  // busy gateway keeps busy, which is what packing the committer's bytes
  // costs (repl/committer.hpp: bytes_per_second).
  t->loop_.emplace(WorkerLoopOptions{.name = "eg-pack", .nice = 10},
                   [p = t.get()](std::vector<Note>& notes, bool) { return p->step(notes); });
  return t;
}

PackThread::~PackThread() { stop(); }

void PackThread::committed(const std::string& ref) {
  const auto now = Clock::now();
  auto joined = loop_->join_last([&](const Note& n) { return !n.drain && n.ref == ref; },
                                 [&](Note& n) {
                                   ++n.commits;
                                   n.last = now;
                                 },
                                 0);
  if (joined && !*joined) (void)loop_->post({ref, 1, now, false}, 0);  // refused: stopped, nothing to pack
}

void PackThread::drain() {
  if (loop_->post({"", 0, {}, true})) loop_->wait_idle();
}

void PackThread::stop() {
  stopping_ = true;  // a pack under way gives up
  if (loop_) loop_->stop(OnStop::abandon);
}

PackThread::Totals PackThread::totals() const {
  std::lock_guard lock(totals_mutex_);
  return totals_;
}

std::optional<PackThread::Clock::time_point> PackThread::step(std::vector<Note>& notes) {
  bool drain = false;
  for (const Note& n : notes) {
    if (n.drain) {
      drain = true;
      continue;
    }
    Pending& p = pending_[n.ref];
    p.commits += n.commits;
    p.last = n.last;
  }
  while (!stopping_) {
    // The first ref due: enough commits, a pause, or a drain.
    const auto now = Clock::now();
    std::string due;
    auto next = Clock::time_point::max();
    for (const auto& [ref, p] : pending_) {
      if (drain || p.commits >= opt_.every || now - p.last >= opt_.idle) {
        due = ref;
        break;
      }
      next = std::min(next, p.last + opt_.idle);
    }
    if (due.empty()) return next == Clock::time_point::max() ? std::nullopt : std::optional(next);
    pending_.erase(due);
    pack(due);
  }
  return std::nullopt;
}

void PackThread::pack(const std::string& ref) {
  auto packed = packer_->pack_new(ref);
  Result<PackStats> merged = PackStats{};
  if (packed) merged = packer_->merge();
  const Result<PackStats>& outcome = !packed ? packed : merged;
  {
    std::lock_guard lock(totals_mutex_);
    ++totals_.calls;
    if (packed) totals_.loose_removed += packed->loose_removed;
    if (merged) totals_.packs_merged += merged->packs_merged;
    if (!outcome) ++totals_.failures;
  }
  if (!outcome && outcome.error().code != Error::stopped && opt_.report)
    opt_.report("the REPL's objects of " + ref + " were not packed: " + outcome.error().message);
}

}  // namespace editgit
