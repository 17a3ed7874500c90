#include "gateway/state_dir.hpp"

#include "gateway/security.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace editgate {

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

}  // namespace

StateDir::StateDir(std::string dir, int lock_fd, std::string cookie)
    : dir_(std::move(dir)), lock_fd_(lock_fd), cookie_(std::move(cookie)) {}

StateDir::StateDir(StateDir&& o) noexcept
    : dir_(std::move(o.dir_)), lock_fd_(std::exchange(o.lock_fd_, -1)), cookie_(std::move(o.cookie_)),
      published_(std::exchange(o.published_, false)) {}

StateDir::~StateDir() {
  if (lock_fd_ < 0) return;
  if (published_) {
    ::unlink((dir_ + "/port").c_str());
    // The lock file only informs; an old text left in it would be harmless.
    if (::ftruncate(lock_fd_, 0) != 0) {
    }
  }
  ::close(lock_fd_);
}

Result<StateDir> StateDir::open(const std::string& root) {
  std::string dir = root + (root.empty() || root.back() == '/' ? "" : "/") + ".editgate";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return os_failure("cannot create " + dir);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return os_failure("cannot read " + dir);
  if (!S_ISDIR(st.st_mode)) return Failure{Error::io, dir + " is not a folder"};
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) return os_failure("cannot make " + dir + " private");

  const std::string lock_path = dir + "/lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return os_failure("cannot open " + lock_path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::string holder = read_small(lock_path);
    while (!holder.empty() && holder.back() == '\n') holder.pop_back();
    ::close(fd);
    return Failure{Error::in_use, "another gateway serves this workspace (" +
                                      (holder.empty() ? std::string("starting") : holder) + "); lock: " + lock_path};
  }
  auto cookie = load_cookie(dir + "/cookie");
  if (!cookie) {
    ::close(fd);
    return cookie.error();
  }
  return StateDir(std::move(dir), fd, std::move(*cookie));
}

Result<void> StateDir::publish(unsigned short port, const std::string& url) {
  std::string holder = "pid " + std::to_string(::getpid()) + ", " + url + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, holder.data(), holder.size(), 0) < 0)
    return os_failure("cannot write " + dir_ + "/lock");
  if (auto w = write_file(dir_ + "/port", std::to_string(port) + "\n", 0600); !w) return w.error();
  published_ = true;
  return {};
}

Result<Published> read_published(const std::string& root) {
  const std::string dir = root + "/.editgate";
  Published p;
  std::string port = read_small(dir + "/port");
  std::string cookie = read_small(dir + "/cookie");
  while (!cookie.empty() && (cookie.back() == '\n' || cookie.back() == '\r')) cookie.pop_back();
  unsigned long n = 0;
  try {
    n = std::stoul(port);
  } catch (...) {
    return Failure{Error::not_found, "no gateway is serving " + root + " (no " + dir + "/port); start `editgate serve`"};
  }
  if (n == 0 || n > 65535 || !is_cookie(cookie))
    return Failure{Error::not_found, "the gateway files in " + dir + " are damaged; restart `editgate serve`"};
  p.port = static_cast<unsigned short>(n);
  p.cookie = cookie;
  return p;
}

}  // namespace editgate
