// A thread of its own for work that may take long and must never hold the
// worker thread: rendering a chat log's Markdown for the dashboard. Its
// queue is bounded: past it submit() refuses, and the caller names the
// error. A job that runs is never stopped from outside (a thread cannot be
// killed safely): each job bounds its own input, so its worst case is
// bounded, and checks between its steps whether it is still wanted and
// whether the thread is stopping (the flag it is given).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace repl {

class RenderThread {
 public:
  explicit RenderThread(std::size_t max_queued);
  RenderThread(const RenderThread&) = delete;
  RenderThread& operator=(const RenderThread&) = delete;
  // Tells the running job to stop and waits for it; the queued ones are
  // dropped unrun. A gateway stopped without its timers (a forced stop)
  // waits one step of a job, not all of it.
  ~RenderThread();

  // The flag a job reads between its steps: true once the thread stops.
  using Job = std::function<void(const std::atomic<bool>& stopping)>;
  // Queues `job`; false (nothing queued) when `max_queued` jobs wait already.
  bool submit(Job job);

 private:
  void loop();

  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::atomic<bool> stop_flag_{false};
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace repl
