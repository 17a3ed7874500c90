#include "cli/mcp_launch.hpp"

#include "services/places.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cli::bridge {

namespace {

// Whether 127.0.0.1:port can be listened on now, as the gateway will try
// (SO_REUSEADDR: a port in TIME_WAIT counts as free).
bool port_free(unsigned short port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

std::string serve_log(const std::string& ws) {
  auto places = services::places_of(ws);
  return places ? places->state + "/serve.log" : ws + ": " + places.error().message;
}

services::Result<pid_t> start_gateway(const std::string& ws, std::optional<unsigned short> asked) {
  auto places = services::places_of(ws);
  if (!places) return places.error();
  if (auto made = services::make_state_folder(*places); !made) return made.error();
  const std::string log = places->state + "/serve.log";
  ::rename(log.c_str(), (log + ".1").c_str());  // the last gateway's log stays one start longer
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (log_fd < 0) return services::Failure{services::Error::io, "cannot write " + log + ": " + std::strerror(errno)};
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  // Everything the child needs is made before fork: after it, a thread of
  // ours may hold the allocator's lock, so the child only calls what is
  // async-signal-safe until exec.
  const unsigned short wanted = asked.value_or(services::default_port(places->id));
  const std::string port = wanted != 0 && port_free(wanted) ? std::to_string(wanted) : "0";
  const char* argv[] = {"editgate", "serve", "--root", ws.c_str(), "--port", port.c_str(), nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();  // no terminal's SIGINT or SIGHUP reaches it, nor the client's kill of the bridge's group
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close_range(3, ~0u, 0);
    ::execv("/proc/self/exe", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  const int saved = errno;
  ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) return services::Failure{services::Error::io, std::string("cannot start a gateway: ") + std::strerror(saved)};
  return pid;
}

bool exited(pid_t child) {
  int status = 0;
  const pid_t r = ::waitpid(child, &status, WNOHANG);
  return r == child || (r < 0 && errno == ECHILD);
}

}  // namespace cli::bridge
