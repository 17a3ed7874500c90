#include "services/devtools.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace services {

namespace net = boost::asio;
namespace json = boost::json;

DevTools::DevTools(net::any_io_executor ex, EventSink events, std::function<void()> ended)
    : ex_(std::move(ex)), events_(std::move(events)), ended_(std::move(ended)) {}

DevTools::~DevTools() {
  // Only when its owner went without a stop: nothing waits any more.
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

Result<void> DevTools::start(const BrowserLaunch& launch) {
  // commands: we write [1], the browser reads [0] as its fd 3; answers: it writes [1] as fd 4.
  int commands[2], answers[2];
  if (::pipe2(commands, O_CLOEXEC) != 0) return Failure{Error::browser_unavailable, "pipe failed"};
  if (::pipe2(answers, O_CLOEXEC) != 0) {
    ::close(commands[0]);
    ::close(commands[1]);
    return Failure{Error::browser_unavailable, "pipe failed"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, launch.output_file.empty() ? "/dev/null" : launch.output_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_adddup2(&actions, commands[0], 3);
  posix_spawn_file_actions_adddup2(&actions, answers[1], 4);
  // Nothing else of the gateway's (its sockets, its files) reaches the browser.
  posix_spawn_file_actions_addclosefrom_np(&actions, 5);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own, so its renderers end with it at stop.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> args{launch.program};
  args.insert(args.end(), launch.flags.begin(), launch.flags.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).substr(0, 9) != "EDITGATE_") env_strings.emplace_back(*e);
  std::vector<char*> env;
  for (auto& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, launch.program.c_str(), &actions, &attr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(commands[0]);
  ::close(answers[1]);
  if (rc != 0) {
    ::close(commands[1]);
    ::close(answers[0]);
    return Failure{Error::browser_unavailable, "cannot start " + launch.program + ": " + std::strerror(rc)};
  }
  // A write to a browser that died fails with EPIPE, never a signal.
  std::signal(SIGPIPE, SIG_IGN);
  pid_ = pid;
  running_ = true;
  answered_ = false;
  output_file_ = launch.output_file;
  how_ended_.clear();
  in_ = std::make_unique<net::posix::stream_descriptor>(ex_, commands[1]);
  out_ = std::make_unique<net::posix::stream_descriptor>(ex_, answers[0]);
  do_read();
  return {};
}

void DevTools::send(const std::string& method, json::object params, const std::string& session, Answer done,
                    std::chrono::milliseconds timeout) {
  if (!running_)
    return net::post(ex_, [done = std::move(done), why = how_ended_] {
      done(Failure{Error::browser_crashed, "the browser is not running (" + why + ")"});
    });
  if (pending_.size() >= max_pending)
    return net::post(ex_, [done = std::move(done)] {
      done(Failure{Error::too_many_requests, "the browser has " + std::to_string(max_pending) +
                                                 " commands unanswered; try again when some have answered"});
    });
  const std::uint64_t id = next_id_++;
  json::object message{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!session.empty()) message["sessionId"] = session;
  Pending& p = pending_[id];
  p.method = method;
  p.done = std::move(done);
  p.timer = std::make_unique<net::steady_timer>(ex_, timeout);
  p.timer->async_wait([self = weak_from_this(), id, method, timeout](boost::system::error_code ec) {
    auto s = self.lock();
    if (ec || !s) return;
    auto it = s->pending_.find(id);
    if (it == s->pending_.end()) return;
    Answer answer = std::move(it->second.done);
    s->pending_.erase(it);
    answer(Failure{Error::page_timeout, "the browser did not answer " + method + " within " +
                                            std::to_string(timeout.count()) + " ms"});
  });
  writes_.push_back(json::serialize(message) + '\0');
  write_next();
}

void DevTools::write_next() {
  if (writing_ || writes_.empty() || !in_) return;
  writing_ = true;
  net::async_write(*in_, net::buffer(writes_.front()), [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
    self->writing_ = false;
    if (!self->writes_.empty()) self->writes_.pop_front();
    if (ec) return self->end("its pipe closed");
    self->write_next();
  });
}

void DevTools::do_read() {
  out_->async_read_some(net::buffer(chunk_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
    if (ec) return self->end("its pipe closed");
    self->on_bytes(n);
    if (self->running_) self->do_read();
  });
}

// Messages end with a NUL. One over the bound is read to its end and
// dropped, not kept: the browser goes on.
void DevTools::on_bytes(std::size_t n) {
  std::string_view bytes(chunk_.data(), n);
  while (!bytes.empty() && running_) {
    const std::size_t end = bytes.find('\0');
    const std::string_view part = bytes.substr(0, end);
    if (!skipping_ && message_.size() + part.size() > max_message_bytes) {
      skipping_ = true;
      message_.clear();
      message_.shrink_to_fit();
    }
    if (!skipping_) message_.append(part);
    if (end == std::string_view::npos) return;
    bytes.remove_prefix(end + 1);
    if (skipping_) {
      skipping_ = false;
      discarded();
    } else {
      on_message(message_);
      message_.clear();
    }
  }
}

// Only a screenshot answers with that much: the oldest one waiting fails by name.
void DevTools::discarded() {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->second.method != "Page.captureScreenshot") continue;
    Answer done = std::move(it->second.done);
    pending_.erase(it);
    return done(Failure{Error::screenshot_too_large, "the browser's answer was over " +
                                                         std::to_string(max_message_bytes >> 20) +
                                                         " MiB: take an element (selector) or the viewport"});
  }
}

void DevTools::on_message(std::string_view text) {
  answered_ = true;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return;
  json::object& m = v.get_object();
  const json::value* id = m.if_contains("id");
  if (!id) {
    const json::value* method = m.if_contains("method");
    const json::value* params = m.if_contains("params");
    const json::value* session = m.if_contains("sessionId");
    if (method && method->is_string() && events_)
      events_(std::string(method->get_string()), params && params->is_object() ? params->get_object() : json::object{},
              session && session->is_string() ? std::string(session->get_string()) : "");
    return;
  }
  if (!id->is_number()) return;
  auto it = pending_.find(id->to_number<std::uint64_t>());
  if (it == pending_.end()) return;  // timed out before
  Answer done = std::move(it->second.done);
  pending_.erase(it);
  if (const json::value* error = m.if_contains("error"); error && error->is_object()) {
    const json::value* message = error->get_object().if_contains("message");
    return done(Failure{Error::browser_error, message && message->is_string() ? std::string(message->get_string())
                                                                              : json::serialize(*error)});
  }
  const json::value* result = m.if_contains("result");
  done(result && result->is_object() ? result->get_object() : json::object{});
}

// The pipe ended or broke: the browser is gone or going; what waits fails by name.
void DevTools::end(const std::string& why) {
  if (!running_) return;
  running_ = false;
  boost::system::error_code ignored;
  if (in_) in_->close(ignored);
  if (out_) out_->close(ignored);
  reap(false);
  if (how_ended_.empty()) how_ended_ = why;
  auto pending = std::move(pending_);
  pending_.clear();
  // One that never said a word did not start: its own output says why.
  const Failure failure = answered_ ? Failure{Error::browser_crashed, "the browser ended before it answered (" + how_ended_ + ")"}
                                    : Failure{Error::browser_unavailable, "the browser " + how_ended_ +
                                                                              " before it answered anything; its output is in " +
                                                                              output_file_};
  for (auto& [id, p] : pending) p.done(failure);
  if (ended_) ended_();
}

// Collects the process: at once when `wait` (stop), else a few tries, as a
// browser whose pipe closed is on its way out.
void DevTools::reap(bool wait) {
  if (pid_ <= 0) return;
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < (wait ? 1 : 50); ++i) {
    r = ::waitpid(pid_, &status, wait ? 0 : WNOHANG);
    if (r != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (r == 0) {
    // Still running with its pipe shut: it is ended, as a browser nobody drives.
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    r = ::waitpid(pid_, &status, 0);
  }
  if (r == pid_) {
    if (WIFSIGNALED(status)) how_ended_ = "killed by signal " + std::to_string(WTERMSIG(status));
    else if (WIFEXITED(status)) how_ended_ = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  ::kill(-pid_, SIGKILL);  // renderers left behind by a crashed browser
  pid_ = -1;
}

void DevTools::stop(std::chrono::milliseconds grace) {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + grace;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= until) {
        ::kill(-pid_, SIGKILL);
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(-pid_, SIGKILL);
    pid_ = -1;
    how_ended_ = "stopped by the gateway";
  }
  ended_ = nullptr;  // a stop is not a crash
  end("stopped by the gateway");
}

}  // namespace services
