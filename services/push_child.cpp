#include "services/push_child.hpp"

#include "services/error.hpp"
#include "git/redact.hpp"
#include "record/repl_ref.hpp"
#include "git/repository.hpp"

#include <boost/json.hpp>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace services {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// The child's sign of life: its silence timer starts again.
constexpr std::string_view alive_line = R"({"alive":true})";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The child: its pid and the read end of its standard output.
struct Child {
  pid_t pid = -1;
  int out = -1;
};

Result<Child> start(const std::string& root, const std::string& remote) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return Failure{Error::io, std::string("cannot start a push: ") + std::strerror(errno)};
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Everything the child needs is made before fork: after it, a thread of
  // ours may hold the allocator's lock, so the child only calls what is
  // async-signal-safe until exec. "--x=value": a value never reads as a flag.
  const std::string root_arg = "--root=" + root, remote_arg = "--remote=" + remote;
  const char* argv[] = {"editgate", "__push", root_arg.c_str(), remote_arg.c_str(), nullptr};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a gateway killed outright takes its push along
    if (::getppid() != parent) ::_exit(127);
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches the gateway, which stops its push itself
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::close_range(3, ~0u, 0);
    ::execv("/proc/self/exe", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  const int saved = errno;
  ::close(out[1]);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    ::close(out[0]);
    return Failure{Error::io, std::string("cannot start a push: ") + std::strerror(saved)};
  }
  return Child{pid, out[0]};
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

// The outcome line as push_in_child returns it.
Result<json::object> outcome_of(const std::string& line, int status) {
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec || !v.is_object())
    return Failure{Error::internal, "the push process ended without an answer (" + how_it_ended(status) + ")"};
  json::object& o = v.as_object();
  if (const json::value* code = o.if_contains("error")) {
    const json::value* message = o.if_contains("message");
    return Failure{code->is_string() ? error_named(code->get_string()).value_or(Error::internal) : Error::internal,
                   editgit::redact_urls(message && message->is_string() ? message->get_string().c_str() : "")};
  }
  return std::move(o);
}

}  // namespace

int run_push_child(const std::string& root, const std::string& remote, std::ostream& out) {
  auto say = [&out](const json::object& line) { out << json::serialize(line) << '\n' << std::flush; };
  auto fail = [&say](Error code, const std::string& message) {
    say({{"error", to_string(code)}, {"message", editgit::redact_urls(message)}});
    return 1;
  };
  auto repo = editgit::Repository::open(root, {}, false);
  if (!repo) return fail(Error::io, repo.error().message);
  editgit::PushRequest request{remote, env("EDITGATE_PUSH_USERNAME"), env("EDITGATE_PUSH_PASSWORD")};
  request.also = {record::repl_ref(*repo)};  // the REPL's history goes with the branch
  // A sign of life for the parent's silence timer, twice a second at most.
  Clock::time_point said = Clock::now();
  request.alive = [&] {
    if (Clock::now() - said < 500ms) return;
    said = Clock::now();
    out << alive_line << '\n' << std::flush;
  };
  auto pushed = repo->push(request);
  if (!pushed) return fail(from_git(pushed.error().code), pushed.error().message);
  json::object line{{"ref", pushed->ref}, {"commit", pushed->commit}, {"up_to_date", pushed->up_to_date}};
  if (pushed->previous) line["previous"] = *pushed->previous;
  json::array also;
  for (const std::string& ref : pushed->also) also.emplace_back(ref);
  line["also"] = std::move(also);
  if (!pushed->also_error.empty()) line["also_error"] = editgit::redact_urls(pushed->also_error);
  say(line);
  return 0;
}

Result<json::object> push_in_child(const std::string& root, const std::string& remote, const ChildLimits& limits) {
  auto child = start(root, remote);
  if (!child) return child.error();
  std::string pending, last;  // a line being read; the last whole line that was not a sign of life
  std::optional<Failure> stopped;
  Clock::time_point silent_at = Clock::now() + limits.silence;
  for (;;) {
    const Clock::time_point now = Clock::now(), deadline = std::min(silent_at, limits.until);
    if (now >= deadline) {
      stopped = Failure{Error::remote_timeout,
                        now >= limits.until
                            ? "the push did not end in the time the gateway gives it while stopping; it was stopped"
                            : "the remote said nothing for " +
                                  std::to_string(std::chrono::ceil<std::chrono::seconds>(limits.silence).count()) +
                                  " s (--push-timeout); the push was stopped"};
      break;
    }
    pollfd fds[2] = {{child->out, POLLIN, 0}, {limits.stop_fd, POLLIN, 0}};
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    const int n = ::poll(fds, limits.stop_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(wait, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      stopped = Failure{Error::io, std::string("cannot wait for the push: ") + std::strerror(errno)};
      break;
    }
    if (limits.stop_fd >= 0 && fds[1].revents) {
      stopped = Failure{Error::shutting_down, "the gateway is stopping: the push under way was stopped"};
      break;
    }
    if (!fds[0].revents) continue;
    char buf[4096];
    const ssize_t got = ::read(child->out, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the child ended
    silent_at = Clock::now() + limits.silence;
    pending.append(buf, static_cast<std::size_t>(got));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
      if (std::string_view(pending).substr(0, nl) != alive_line) last = pending.substr(0, nl);
  }
  if (stopped) ::kill(child->pid, SIGKILL);
  ::close(child->out);
  const int status = reap(child->pid);
  if (stopped) return *stopped;
  return outcome_of(last, status);
}

}  // namespace services
