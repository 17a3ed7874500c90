#include "editproto/workspace.hpp"

#include "editproto/workspace_os.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>

namespace editproto {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace detail {

Failure os_failure(std::string_view what, const std::string& path, int err) {
  return {Reason::io_error, std::string(what) + " " + path + ": " + std::strerror(err)};
}

Stamp stamp_of(const struct stat& st) {
  Stamp s;
  s.exists = true;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = st.st_size;
  s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<long long>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  s.mode = st.st_mode;
  return s;
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a named pipe";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

void ignore_lease_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction now{};
    if (::sigaction(SIGIO, nullptr, &now) == 0 && now.sa_handler == SIG_DFL) ::signal(SIGIO, SIG_IGN);
  });
}

}  // namespace detail

using namespace detail;

namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    std::size_t slash = s.find('/');
    std::string_view part = s.substr(0, slash);
    if (!part.empty()) out.emplace_back(part);
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

mode_t read_umask() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "Umask:") {
      std::string value;
      status >> value;
      return static_cast<mode_t>(std::strtoul(value.c_str(), nullptr, 8));
    }
  }
  return 022;
}

}  // namespace

bool Workspace::protected_name(std::string_view component) { return iequals(component, ".git"); }

Outcome<Workspace> Workspace::open(const std::string& root) {
  Workspace ws;
  ws.root_ = root;
  char* real = ::realpath(root.c_str(), nullptr);
  if (real == nullptr) return os_failure("cannot open workspace root", root, errno);
  ws.root_real_ = real;
  std::free(real);
  int fd = ::open(ws.root_real_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_failure("cannot open workspace root", root, errno);
  ws.root_fd_ = std::make_shared<Fd>(fd);
  ws.umask_ = read_umask();
  return ws;
}

Outcome<std::string> Workspace::normalize(std::string_view raw) const {
  const std::string quoted = std::string("'").append(raw).append("'");  // for messages
  if (raw.find('\0') != std::string_view::npos)
    return Failure{Reason::path_escape, "the path contains a NUL byte"};
  std::string path(raw);
  for (char& c : path)
    if (c == '\\') c = '/';
  bool drive = path.size() >= 2 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':';
  if (path.starts_with('/') || drive || path.starts_with('~'))
    return Failure{Reason::path_escape, quoted + " is an absolute path; write paths relative to the workspace "
                                                 "root (e.g. src/main.py)"};
  std::vector<std::string> parts;
  for (std::string& c : split(path)) {
    if (c == ".") continue;
    if (c == "..") {
      if (parts.empty())
        return Failure{Reason::path_escape, quoted + " uses '..' to leave the workspace root"};
      parts.pop_back();
      continue;
    }
    parts.push_back(std::move(c));
  }
  if (parts.empty()) return Failure{Reason::path_escape, quoted + " names no file"};
  for (const std::string& c : parts)
    if (Workspace::protected_name(c))
      return Failure{Reason::protected_path,
                     quoted + " is inside " + c + "/, which edit blocks may not change"};
  return join(parts);
}

Outcome<Workspace::Located> Workspace::locate(const std::string& rel, bool create_parents) const {
  std::deque<std::string> todo;
  for (std::string& c : split(rel)) todo.push_back(std::move(c));
  std::vector<std::string> real;  // components resolved so far
  std::vector<Fd> dirs;           // their folder descriptors
  auto current = [&] { return dirs.empty() ? root_fd_->get() : dirs.back().get(); };
  int links = 0, races = 0;

  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (real.empty())
        return Failure{Reason::path_escape, "'" + rel + "' leads out of the workspace through a symlink"};
      real.pop_back();
      dirs.pop_back();
      continue;
    }
    if (Workspace::protected_name(c))
      return Failure{Reason::protected_path, "'" + rel + "' resolves into " + c + "/, which edit blocks may not change"};
    const bool last = todo.empty();
    struct stat st;
    if (::fstatat(current(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) return os_failure("cannot inspect", join(real) + (real.empty() ? "" : "/") + c, errno);
      if (last) return Located{dirs.empty() ? Fd(::fcntl(root_fd_->get(), F_DUPFD_CLOEXEC, 0)) : std::move(dirs.back()), c,
                               join(real) + (real.empty() ? "" : "/") + c};
      if (!create_parents) return Located{Fd(), c, join(real) + (real.empty() ? "" : "/") + c + "/" + [&] {
        std::vector<std::string> rest(todo.begin(), todo.end());
        return join(rest);
      }()};
      if (::mkdirat(current(), c.c_str(), 0777) != 0 && errno != EEXIST)
        return os_failure("cannot create folder", join(real) + (real.empty() ? "" : "/") + c, errno);
      todo.push_front(c);  // now look at what was created
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links > 40) return Failure{Reason::path_escape, "'" + rel + "' has too many levels of symlinks"};
      std::string target(static_cast<std::size_t>(st.st_size) + 256, '\0');
      ssize_t n = ::readlinkat(current(), c.c_str(), target.data(), target.size());
      if (n < 0) return os_failure("cannot read symlink", c, errno);
      target.resize(static_cast<std::size_t>(n));
      std::string shown = join(real) + (real.empty() ? "" : "/") + c;
      if (target.starts_with('/')) {
        if (target != root_real_ && !target.starts_with(root_real_ + "/"))
          return Failure{Reason::path_escape, "'" + rel + "' goes through the symlink " + shown + " -> " + target +
                                                  ", which points outside the workspace"};
        real.clear();
        dirs.clear();
        target = target.substr(root_real_.size());
      }
      std::vector<std::string> parts = split(target);
      todo.insert(todo.begin(), parts.begin(), parts.end());
      // A relative target that climbs above the root is caught by ".." above.
      continue;
    }
    if (last) {
      Fd dir = dirs.empty() ? Fd(::fcntl(root_fd_->get(), F_DUPFD_CLOEXEC, 0)) : std::move(dirs.back());
      return Located{std::move(dir), c, join(real) + (real.empty() ? "" : "/") + c};
    }
    if (!S_ISDIR(st.st_mode))
      return Failure{Reason::file_not_found, "'" + rel + "': " + join(real) + (real.empty() ? "" : "/") + c +
                                                 " is a file, not a folder"};
    int fd = ::openat(current(), c.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      // Replaced between fstatat and openat: look again, a bounded number of times.
      if ((errno == ELOOP || errno == ENOTDIR || errno == ENOENT) && ++races < 8) {
        todo.push_front(c);
        continue;
      }
      return os_failure("cannot open folder", c, errno);
    }
    dirs.emplace_back(fd);
    real.push_back(c);
  }
  return Failure{Reason::path_escape, "'" + rel + "' names no file"};
}

Outcome<std::string> Workspace::resolve(const std::string& rel) const {
  auto located = locate(rel, false);
  if (!located) return located.error();
  return std::move(located->real_rel);
}

Outcome<Stamp> Workspace::stat(const std::string& real_rel) const {
  auto located = locate(real_rel, false);
  if (!located) return located.error();
  if (!located->dir) return Stamp{};
  struct stat st;
  if (::fstatat(located->dir.get(), located->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return Stamp{};
    return os_failure("cannot inspect", real_rel, errno);
  }
  return stamp_of(st);
}

Outcome<Workspace::Opened> Workspace::open_read(const std::string& real_rel) const {
  auto located = locate(real_rel, false);
  if (!located) return located.error();
  Opened out;
  if (!located->dir) return out;
  Fd fd(::openat(located->dir.get(), located->name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) {
    if (errno == ENOENT) return out;
    if (errno == ELOOP)
      return Failure{Reason::path_escape, "'" + real_rel + "' became a symlink while it was being read"};
    return os_failure("cannot read", real_rel, errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
  if (!S_ISREG(st.st_mode))
    return Failure{Reason::file_not_found, "'" + real_rel + "' is " + kind_of(st.st_mode) + ", not a file"};
  out.fd = std::move(fd);
  out.stamp = stamp_of(st);
  return out;
}

Outcome<Fd> Workspace::open_folder(const std::string& real_rel) const {
  if (real_rel.empty()) {
    Fd fd(::openat(root_fd_->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return os_failure("cannot open folder", ".", errno);
    return fd;
  }
  auto located = locate(real_rel, false);
  if (!located) return located.error();
  if (!located->dir) return Failure{Reason::file_not_found, "'" + real_rel + "' does not exist"};
  Fd fd(::openat(located->dir.get(), located->name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd) return fd;
  if (errno == ENOENT) return Failure{Reason::file_not_found, "'" + real_rel + "' does not exist"};
  if (errno == ENOTDIR || errno == ELOOP) return Failure{Reason::file_not_found, "'" + real_rel + "' is not a folder"};
  return os_failure("cannot open folder", real_rel, errno);
}

Outcome<FileContent> Workspace::read(const std::string& real_rel, std::size_t max_bytes) const {
  auto opened = open_read(real_rel);
  if (!opened) return opened.error();
  FileContent out;
  if (!opened->fd) return out;
  const Fd& fd = opened->fd;
  const Stamp& st = opened->stamp;
  if (static_cast<std::size_t>(st.size) > max_bytes)
    return Failure{Reason::too_large, "'" + real_rel + "' is " + std::to_string(st.size) +
                                          " bytes, over the limit of " + std::to_string(max_bytes) + " bytes"};
  out.stamp = st;
  out.bytes.resize(static_cast<std::size_t>(st.size));
  std::size_t got = 0;
  char probe[4096];
  while (true) {
    // At the size fstat gave, the end is probed in a small buffer: growing
    // the string for it moved the whole file to a new block at every read.
    const bool at_size = got == out.bytes.size();
    ssize_t n = at_size ? ::read(fd.get(), probe, sizeof probe)
                        : ::read(fd.get(), out.bytes.data() + got, out.bytes.size() - got);
    if (at_size && n > 0) out.bytes.append(probe, static_cast<std::size_t>(n));  // the file grew
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_failure("cannot read", real_rel, errno);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > max_bytes)
      return Failure{Reason::too_large, "'" + real_rel + "' is over the limit of " + std::to_string(max_bytes) + " bytes"};
  }
  out.bytes.resize(got);
  return out;
}


void Workspace::clean_leftovers(const std::string& real_rel) const {
  const std::size_t slash = real_rel.rfind('/');
  const std::string folder = slash == std::string::npos ? std::string() : real_rel.substr(0, slash);
  Fd dir;
  if (folder.empty()) {
    dir = Fd(::openat(root_fd_->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  } else {
    auto located = locate(folder, false);
    if (!located || !located->dir) return;
    dir = Fd(::openat(located->dir.get(), located->name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  if (!dir) return;
  DIR* d = ::fdopendir(dir.get());
  if (!d) return;
  const int fd = dir.release();
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    // ".<name>.editgate-<pid>-<n>", as write_temp names them.
    const std::size_t mark = n.rfind(".editgate-");
    if (!n.starts_with('.') || mark == std::string_view::npos || mark == 0) continue;
    std::string_view tail = n.substr(mark + 10);
    const std::size_t dash = tail.find('-');
    if (dash == 0 || dash == std::string_view::npos || dash + 1 == tail.size()) continue;
    auto digits = [](std::string_view s) {
      return s.size() <= 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(tail.substr(0, dash)) || !digits(tail.substr(dash + 1))) continue;
    const long pid = std::strtol(std::string(tail.substr(0, dash)).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    // Only a writer that is gone: a live one is between its write and its rename.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    stale.emplace_back(n);
  }
  for (const std::string& n : stale) {
    struct stat st;
    if (::fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) ::unlinkat(fd, n.c_str(), 0);
  }
  ::closedir(d);
}

Outcome<void> Workspace::remove(const std::string& real_rel) const {
  auto located = locate(real_rel, false);
  if (!located) {
    if (located.error().reason == Reason::file_not_found) return {};
    return located.error();
  }
  struct stat st;
  if (::fstatat(located->dir.get(), located->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Outcome<void>() : Outcome<void>(os_failure("cannot inspect", real_rel, errno));
  if (!S_ISREG(st.st_mode))
    return Failure{Reason::file_not_found, "'" + real_rel + "' is " + kind_of(st.st_mode) + ", not a file"};
  if (::unlinkat(located->dir.get(), located->name.c_str(), 0) != 0) return os_failure("cannot remove", real_rel, errno);
  return {};
}

}  // namespace editproto
