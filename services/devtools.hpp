// The DevTools protocol on a pipe: the gateway's own headless Chromium,
// started with --remote-debugging-pipe, reads commands on its descriptor 3
// and writes answers and events on its descriptor 4, each a JSON message
// ended by a NUL byte. No port is opened, so no other local process can
// drive the browser. Lives on one executor (the worker thread's); no lock.
#pragma once

#include "services/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace services {

// How a browser is started: the program, its flags beyond the pipe's, and
// the file its output goes to.
struct BrowserLaunch {
  std::string program;
  std::vector<std::string> flags;
  std::string output_file;
};

class DevTools : public std::enable_shared_from_this<DevTools> {
 public:
  using Answer = std::function<void(Result<boost::json::object>)>;
  // An event: its method, its params and the session it came on ("" for the browser's).
  using EventSink = std::function<void(const std::string& method, const boost::json::object& params,
                                       const std::string& session)>;

  // Past these a command is refused busy or the browser's message cut off
  // the pipe: a PNG of 8 MiB is about 11 MiB of base64.
  static constexpr std::size_t max_message_bytes = 32u << 20;
  static constexpr std::size_t max_pending = 256;
  static constexpr std::chrono::seconds command_timeout{20};

  DevTools(boost::asio::any_io_executor ex, EventSink events, std::function<void()> ended);
  ~DevTools();

  // Starts the browser; browser_unavailable when it cannot be spawned.
  Result<void> start(const BrowserLaunch& launch);
  // Sends a command (to `session`'s target, or the browser's when "");
  // `done` gets its result, or a failure: browser_crashed once the pipe
  // ended, page_timeout past `timeout`, browser_error for the protocol's.
  void send(const std::string& method, boost::json::object params, const std::string& session, Answer done,
            std::chrono::milliseconds timeout = command_timeout);
  // Ends the browser and its process group; waits for it at most `grace`.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  bool running() const { return running_; }
  int pid() const { return pid_; }
  // How the process ended, in words ("exited with status 1", "killed by signal 9"); "" while it runs.
  const std::string& how_ended() const { return how_ended_; }

 private:
  struct Pending {
    std::string method;
    Answer done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };
  void do_read();
  void on_bytes(std::size_t n);
  void on_message(std::string_view text);
  void discarded();
  void write_next();
  void end(const std::string& why);
  void reap(bool wait);

  boost::asio::any_io_executor ex_;
  EventSink events_;
  std::function<void()> ended_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> in_, out_;  // ours: we write in_, read out_
  std::vector<char> chunk_ = std::vector<char>(64 * 1024);
  std::string message_;     // the message read so far
  bool skipping_ = false;   // past max_message_bytes: read on to its end, unkept
  std::deque<std::string> writes_;
  bool writing_ = false;
  bool answered_ = false;  // it sent a message: it started
  std::string output_file_;
  bool running_ = false;
  int pid_ = -1;
  std::string how_ended_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Pending> pending_;
};

}  // namespace services
