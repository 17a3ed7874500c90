// A thread of its own for work that may take long and must never hold the
// worker thread: rendering a chat log's Markdown for the dashboard. Its
// queue is bounded: past it submit() refuses, and the caller names the
// error. A job that runs is never stopped from outside (a thread cannot be
// killed safely): each job bounds its own input, so its worst case is
// bounded, and checks whether it is still wanted between its steps.
#pragma once

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
  // Lets the running job end; the queued ones are dropped unrun.
  ~RenderThread();

  // Queues `job`; false (nothing queued) when `max_queued` jobs wait already.
  bool submit(std::function<void()> job);

 private:
  void loop();

  const std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace repl
