// The two ends of `editgate mcp`'s stdio: standard input split into lines
// on a thread of its own (a blocking read works on pipes, terminals and
// files alike), handed over a bounded number at a time; standard output
// written by one writer, whole lines. No Beast here.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace cli::bridge {

struct InputEvent {
  enum Kind { line, too_long, end } kind = line;
  std::string text;  // a line without its line end (a CR before it dropped)
};

// Lines read but not processed yet, at most `max_pending`: past it the
// reader waits, so a client that writes faster than answers are read costs
// no memory.
class InputGate {
 public:
  explicit InputGate(std::size_t max_pending) : max_(max_pending) {}
  void enter();  // the reader, before it hands a line over
  void leave();  // the consumer, once it has taken the line

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::size_t pending_ = 0;
  std::size_t max_;
};

// Starts the reader thread (detached: it may sit in read() when the bridge
// stops for a signal). `deliver` runs on that thread, once per event, after
// gate->enter(); an `end` event is the last.
void start_reader(int fd, std::shared_ptr<InputGate> gate, std::function<void(InputEvent)> deliver);

// Writes all of `bytes` to `fd`; false when it cannot (the reader went away).
bool write_all(int fd, std::string_view bytes);

}  // namespace cli::bridge
