// What a connection has queued for its client and not yet written (each
// piece framed), and how many bytes that is: a door that queues for a
// client that may not read (an MCP event stream) asks before it queues
// more. The queue is its connection's strand's; the count may be read from
// any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace gateway {

// A piece of a streamed response: a chunk for HTTP/1.1; bare for HTTP/1.0,
// whose clients know no chunks and read to the end of the connection.
inline std::string framed(std::string_view data, bool chunked) {
  if (!chunked) return std::string(data);
  std::ostringstream s;
  s << std::hex << data.size() << "\r\n" << data << "\r\n";
  return s.str();
}

class WriteQueue {
 public:
  void push_back(std::string bytes) {
    bytes_ += bytes.size();
    queue_.push_back(std::move(bytes));
  }
  void pop_front() {
    bytes_ -= queue_.front().size();
    queue_.pop_front();
  }
  std::string& front() { return queue_.front(); }
  void clear() {
    queue_.clear();
    bytes_ = 0;
  }
  bool empty() const { return queue_.empty(); }
  std::size_t size() const { return queue_.size(); }
  std::size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  std::deque<std::string> queue_;
  std::atomic<std::size_t> bytes_{0};
};

}  // namespace gateway
