#include "git/pack_thread.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace editgit {

using Clock = std::chrono::steady_clock;

Result<std::unique_ptr<PackThread>> PackThread::start(const std::string& gitdir, PackThreadOptions options) {
  std::unique_ptr<PackThread> t(new PackThread(std::move(options)));
  t->opt_.packer.stop = &t->stopping_;
  auto packer = Packer::open(gitdir, t->opt_.packer);
  if (!packer) return packer.error();
  t->packer_.emplace(std::move(*packer));
  t->thread_ = std::thread([p = t.get()] { p->loop(); });
  return t;
}

PackThread::~PackThread() { stop(); }

void PackThread::committed(const std::string& ref) {
  std::lock_guard lock(mutex_);
  Pending& p = pending_[ref];
  ++p.commits;
  p.last = Clock::now();
  // The first commit sets the thread's deadline (the pause), `every` its due.
  if (p.commits == 1 || p.commits >= opt_.every) wake_.notify_one();
}

void PackThread::drain() {
  std::unique_lock lock(mutex_);
  if (!thread_.joinable()) return;
  drain_ = true;
  wake_.notify_one();
  done_.wait(lock, [&] { return !drain_ || stopping_; });
}

void PackThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
    done_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

PackThread::Totals PackThread::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

void PackThread::loop() {
  // A low priority for this thread alone (Linux: a thread's own nice value):
  // a pack runs mostly on what the exchanges leave, yet at 10 it still gets
  // about a tenth of a core that a busy gateway keeps busy, which is what
  // packing the committer's bytes costs (repl/committer.hpp: bytes_per_second).
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // The first ref due: enough commits, a pause, or a drain.
    const auto now = Clock::now();
    std::string due;
    auto next = Clock::time_point::max();
    for (const auto& [ref, p] : pending_) {
      if (drain_ || p.commits >= opt_.every || now - p.last >= opt_.idle) {
        due = ref;
        break;
      }
      next = std::min(next, p.last + opt_.idle);
    }
    if (!due.empty()) {
      pending_.erase(due);
      lock.unlock();
      pack(due);
      lock.lock();
      continue;
    }
    if (drain_) {
      drain_ = false;
      done_.notify_all();
    }
    if (next == Clock::time_point::max())
      wake_.wait(lock);
    else
      wake_.wait_until(lock, next);
  }
}

void PackThread::pack(const std::string& ref) {
  auto packed = packer_->pack_new(ref);
  Result<PackStats> merged = PackStats{};
  if (packed) merged = packer_->merge();
  const Result<PackStats>& outcome = !packed ? packed : merged;
  {
    std::lock_guard lock(mutex_);
    ++totals_.calls;
    if (packed) totals_.loose_removed += packed->loose_removed;
    if (merged) totals_.packs_merged += merged->packs_merged;
    if (!outcome) ++totals_.failures;
  }
  if (!outcome && outcome.error().code != Error::stopped && opt_.report)
    opt_.report("the REPL's objects of " + ref + " were not packed: " + outcome.error().message);
}

}  // namespace editgit
