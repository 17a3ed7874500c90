#include "repl/render_thread.hpp"

#include <utility>

namespace repl {

RenderThread::RenderThread(std::size_t max_queued) : max_queued_(max_queued), thread_([this] { loop(); }) {}

RenderThread::~RenderThread() {
  std::deque<Job> dropped;
  stop_flag_ = true;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  thread_.join();
}

bool RenderThread::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void RenderThread::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job(stop_flag_);
  }
}

}  // namespace repl
