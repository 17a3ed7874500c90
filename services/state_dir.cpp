#include "services/state_dir.hpp"

#include "services/security.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace services {

namespace {

Failure os_failure(const std::string& what) { return {Error::io, what + ": " + std::strerror(errno)}; }

std::string read_small(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes through a temp file and a rename, so a reader never sees half.
Result<void> write_file(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return os_failure("cannot write " + tmp);
  bool ok = ::fchmod(fd, mode) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    Failure f = os_failure("cannot write " + path);
    ::unlink(tmp.c_str());
    return f;
  }
  return {};
}

struct flock whole_file(short type) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;  // l_start and l_len 0: the whole file; l_pid 0, as OFD locks require
  return l;
}

bool is_cookie(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The existing cookie when it is well formed and private to this user;
// otherwise a new one (one that others could read may have leaked).
Result<std::string> load_cookie(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0 &&
      st.st_uid == ::geteuid()) {
    std::string c = read_small(path);
    while (!c.empty() && (c.back() == '\n' || c.back() == '\r')) c.pop_back();
    if (is_cookie(c)) return c;
  }
  std::string fresh = random_hex(32);
  ::unlink(path.c_str());
  if (auto w = write_file(path, fresh + "\n", 0600); !w) return w.error();
  return fresh;
}

// Takes the lock file at `path`, and keeps it while the descriptor is open.
// An open-file-description lock, not flock(): clients ask whether it is
// held with F_OFD_GETLK, which takes nothing, so a gateway starting at that
// moment is never refused because a client was looking.
Result<int> take_lock(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return os_failure("cannot open " + path);
  struct flock whole = whole_file(F_WRLCK);
  if (::fcntl(fd, F_OFD_SETLK, &whole) == 0) return fd;
  std::string holder = read_small(path);
  while (!holder.empty() && holder.back() == '\n') holder.pop_back();
  ::close(fd);
  return Failure{Error::in_use, "another gateway serves this workspace (" +
                                    (holder.empty() ? std::string("starting") : holder) + "); lock: " + path};
}

// Removes the state folders of workspaces that are gone (their `root`
// names a folder that no longer exists) and that no gateway holds: their
// cookies and page keys would otherwise stay for good.
void prune_gone(const std::string& home, const std::string& self) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(home, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string dir = it->path().string();
    if (dir == self) continue;
    std::string root = read_small(dir + "/root");
    while (!root.empty() && root.back() == '\n') root.pop_back();
    struct stat st {};
    if (root.empty() || root.front() != '/' || ::lstat(root.c_str(), &st) == 0 || errno != ENOENT) continue;
    // Its parent must be there: a disk not mounted or a home seen from a
    // sandbox hides a workspace that still exists.
    const std::string parent = fs::path(root).parent_path().string();
    if (::lstat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    int fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    struct flock whole = whole_file(F_WRLCK);
    if (fd >= 0 && ::fcntl(fd, F_OFD_SETLK, &whole) != 0) {
      ::close(fd);  // a gateway still serves a workspace deleted under it
      continue;
    }
    fs::remove_all(dir, ec);
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace

StateDir::StateDir(std::string dir, int lock_fd, std::string cookie)
    : dir_(std::move(dir)), lock_fd_(lock_fd), cookie_(std::move(cookie)) {}

StateDir::StateDir(StateDir&& o) noexcept
    : dir_(std::move(o.dir_)), lock_fd_(std::exchange(o.lock_fd_, -1)),
      agents_lock_fd_(std::exchange(o.agents_lock_fd_, -1)), cookie_(std::move(o.cookie_)),
      published_(std::exchange(o.published_, false)) {}

StateDir::~StateDir() {
  if (agents_lock_fd_ >= 0) ::close(agents_lock_fd_);
  if (lock_fd_ < 0) return;
  if (published_) {
    ::unlink((dir_ + "/port").c_str());
    ::unlink((dir_ + "/server.json").c_str());
    // The lock file only informs; an old text left in it would be harmless.
    if (::ftruncate(lock_fd_, 0) != 0) {
    }
  }
  ::close(lock_fd_);
}

Result<StateDir> StateDir::open(const Places& places) {
  const std::string& dir = places.state;
  const std::string home = std::filesystem::path(dir).parent_path().string();
  if (auto made = make_state_folder(places); !made) return made.error();

  auto locked = take_lock(dir + "/lock");
  if (!locked) return locked.error();
  const int fd = *locked;
  // A port or server file here was left by a gateway that was killed: it
  // names no one.
  ::unlink((dir + "/port").c_str());
  ::unlink((dir + "/server.json").c_str());
  auto cookie = load_cookie(dir + "/cookie");
  if (cookie) {
    if (auto w = write_file(dir + "/root", places.root + "\n", 0600); !w) cookie = w.error();
  }
  if (!cookie) {
    ::close(fd);
    return cookie.error();
  }
  prune_gone(home, dir);
  return StateDir(dir, fd, std::move(*cookie));
}

Result<void> StateDir::hold_agents(const std::string& agents) {
  if (auto made = private_folder(agents); !made) return made.error();
  auto locked = take_lock(agents + "/lock");
  if (!locked) return locked.error();
  agents_lock_fd_ = *locked;
  return {};
}

Result<void> StateDir::publish(unsigned short port, const std::string& url, const std::string& server) {
  std::string holder = "pid " + std::to_string(::getpid()) + ", " + url + "\n";
  for (int fd : {lock_fd_, agents_lock_fd_})
    if (fd >= 0 && (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) < 0))
      return os_failure("cannot write a lock file of " + dir_);
  // server.json first: a client that finds the port finds both.
  if (auto w = write_file(dir_ + "/server.json", server + "\n", 0600); !w) return w.error();
  if (auto w = write_file(dir_ + "/port", std::to_string(port) + "\n", 0600); !w) return w.error();
  published_ = true;
  return {};
}

namespace {

// The state folder of the workspace at `root`, for a client.
Result<std::string> state_of(const std::string& root) {
  auto places = places_of(root);
  if (!places) return places.error();
  return places->state;
}

}  // namespace

Result<void> gateway_running(const std::string& root) {
  auto state = state_of(root);
  if (!state) return state.error();
  const std::string& dir = *state;
  const std::string lock_path = dir + "/lock";
  const std::string start = "; start one with `editgate serve`";
  int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return Failure{Error::not_found, "no gateway is running (none has served " + root + ")" + start};
    return os_failure("cannot read " + lock_path);
  }
  struct flock probe = whole_file(F_WRLCK);
  const int rc = ::fcntl(fd, F_OFD_GETLK, &probe);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) {
    errno = saved;
    return os_failure("cannot ask whether a gateway holds " + lock_path);
  }
  if (probe.l_type != F_UNLCK) return {};
  // Nobody holds the lock. A port file left behind names a gateway that was
  // killed before it could remove it; its lock file still says which.
  struct stat st {};
  if (::lstat((dir + "/port").c_str(), &st) != 0)
    return Failure{Error::not_found, "no gateway is running (the last one to serve " + root + " has stopped)" + start};
  std::string holder = read_small(lock_path);
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
  return Failure{Error::not_found, "no gateway is running (" + dir + "/port is left from one that stopped without "
                                       "removing it" + (holder.empty() ? "" : ": " + holder) + ")" + start};
}

Result<Published> read_published(const std::string& root) {
  if (auto running = gateway_running(root); !running) return running.error();
  auto state = state_of(root);
  if (!state) return state.error();
  const std::string& dir = *state;
  Published p;
  std::string port = read_small(dir + "/port");
  std::string cookie = read_small(dir + "/cookie");
  while (!cookie.empty() && (cookie.back() == '\n' || cookie.back() == '\r')) cookie.pop_back();
  unsigned long n = 0;
  try {
    n = std::stoul(port);
  } catch (...) {
    // The lock is held and the port not written yet: the gateway is starting.
    return Failure{Error::not_found, "the gateway of " + root + " is starting (no " + dir + "/port yet); try again"};
  }
  if (n == 0 || n > 65535 || !is_cookie(cookie))
    return Failure{Error::io, "the gateway files in " + dir + " are damaged; restart `editgate serve`"};
  p.port = static_cast<unsigned short>(n);
  p.cookie = cookie;
  return p;
}

}  // namespace services
