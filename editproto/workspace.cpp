#include "editproto/workspace.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
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

namespace {

Failure os_failure(std::string_view what, const std::string& path, int err) {
  return {Reason::io_error, std::string(what) + " " + path + ": " + std::strerror(err)};
}

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

// Folders whose content belongs to tools, not to agents.
bool is_protected(std::string_view component) {
  return iequals(component, ".git") || iequals(component, ".editgate");
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

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a named pipe";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

}  // namespace

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
    if (is_protected(c))
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
    if (is_protected(c))
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

Outcome<FileContent> Workspace::read(const std::string& real_rel, std::size_t max_bytes) const {
  auto located = locate(real_rel, false);
  if (!located) return located.error();
  FileContent out;
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
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    return Failure{Reason::too_large, "'" + real_rel + "' is " + std::to_string(st.st_size) +
                                          " bytes, over the limit of " + std::to_string(max_bytes) + " bytes"};
  out.stamp = stamp_of(st);
  out.bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (true) {
    if (got == out.bytes.size()) out.bytes.resize(got + 65536);  // the file grew
    ssize_t n = ::read(fd.get(), out.bytes.data() + got, out.bytes.size() - got);
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

Outcome<Fd> Workspace::write_temp(int dir, const std::string& name, const std::string& real_rel,
                                  std::span<const std::string_view> chunks, mode_t mode, std::string& tmp) const {
  static std::atomic<unsigned> counter{0};
  tmp = "." + name + ".editgate-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  Fd fd(::openat(dir, tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return os_failure("cannot create a temporary file next to", real_rel, errno);
  auto fail = [&](const char* what) {
    int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return os_failure(what, real_rel, err);
  };
  // writev in batches; a short write finishes the batch chunk by chunk.
  for (std::size_t at = 0; at < chunks.size();) {
    iovec iov[256];
    std::size_t n = 0, want = 0;
    for (; n < 256 && at + n < chunks.size(); ++n) {
      iov[n].iov_base = const_cast<char*>(chunks[at + n].data());
      iov[n].iov_len = chunks[at + n].size();
      want += chunks[at + n].size();
    }
    ssize_t got = ::writev(fd.get(), iov, static_cast<int>(n));
    if (got < 0 && errno != EINTR) return fail("cannot write");
    std::size_t skip = got < 0 ? 0 : static_cast<std::size_t>(got);
    if (skip < want) {
      for (std::size_t i = 0; i < n; ++i) {
        std::string_view c = chunks[at + i];
        std::size_t drop = std::min(skip, c.size());
        skip -= drop;
        c.remove_prefix(drop);
        while (!c.empty()) {
          ssize_t w = ::write(fd.get(), c.data(), c.size());
          if (w < 0) {
            if (errno == EINTR) continue;
            return fail("cannot write");
          }
          c.remove_prefix(static_cast<std::size_t>(w));
        }
      }
    }
    at += n;
  }
  if (::fchmod(fd.get(), mode) != 0) return fail("cannot set the mode of");
  return fd;
}

Outcome<Stamp> Workspace::write_atomic(const std::string& real_rel, std::span<const std::string_view> chunks) const {
  auto located = locate(real_rel, true);
  if (!located) return located.error();
  const int dir = located->dir.get();
  const std::string& name = located->name;

  mode_t mode = 0666 & ~umask_;
  struct stat st;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode))
      return Failure{Reason::file_not_found, "'" + real_rel + "' is " + kind_of(st.st_mode) + ", not a file"};
    mode = st.st_mode & 07777;
  }
  std::string tmp;
  auto fd = write_temp(dir, name, real_rel, chunks, mode, tmp);
  if (!fd) return fd.error();
  if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return os_failure("cannot replace", real_rel, err);
  }
  if (::fstat(fd->get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
  return stamp_of(st);
}

namespace {

// The whole content behind `fd`, from its start; nullopt past `max_bytes`.
std::optional<std::string> read_all(int fd, std::size_t max_bytes) {
  std::string out;
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(got + 65536);
    ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > max_bytes) return std::nullopt;
  }
  out.resize(got);
  return out;
}

bool same_inode(int dir, const std::string& name, int fd) {
  struct stat a, b;
  return ::fstatat(dir, name.c_str(), &a, AT_SYMLINK_NOFOLLOW) == 0 && ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

bool exchange(int dir, const std::string& a, const std::string& b) {
  return ::renameat2(dir, a.c_str(), dir, b.c_str(), RENAME_EXCHANGE) == 0;
}

// Leases (fcntl F_SETLEASE) make another process's open of a file wait until
// the holder lets go, and tell the holder someone is waiting. The kernel
// signals a lease break with SIGIO, whose default action ends the process;
// editgate waits for nothing on it, so it is ignored (unless someone set it).
void ignore_lease_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction now{};
    if (::sigaction(SIGIO, nullptr, &now) == 0 && now.sa_handler == SIG_DFL) ::signal(SIGIO, SIG_IGN);
  });
}

// A read lease on the file we are about to replace: from here on nobody can
// open it for writing without waiting for us. Refused while someone has it
// open for writing (a save in progress): wait for that to end, up to a
// quarter second, then go on without (a file a process keeps open for
// writing would otherwise never be written). False also where the file
// system has no leases.
bool lease_to_read(int fd) {
  for (int waited_ms = 0;; ++waited_ms) {
    if (::fcntl(fd, F_SETLEASE, F_RDLCK) == 0) return true;
    if (errno != EAGAIN || waited_ms >= 250) return false;
    ::usleep(1000);
  }
}

// Whether an open of the file behind `fd` waits on our lease of `type`: the
// kernel then reports the lease it is being broken to.
int waiting_opener(int fd, int type) {
  const int now = ::fcntl(fd, F_GETLEASE);
  return now < 0 || now == type ? -1 : now;  // F_RDLCK: a reader, F_UNLCK: a writer
}

bool copy_into(int to, int from, std::size_t max_bytes) {
  auto bytes = read_all(from, max_bytes);
  if (!bytes || ::ftruncate(to, 0) != 0) return false;
  for (std::size_t at = 0; at < bytes->size();) {
    ssize_t n = ::pwrite(to, bytes->data() + at, bytes->size() - at, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

Outcome<Workspace::Replaced> Workspace::replace(const std::string& real_rel, std::span<const std::string_view> chunks,
                                                const Stamp& seen, const std::function<bool(std::string_view)>& same,
                                                std::size_t max_bytes) const {
  auto located = locate(real_rel, true);
  if (!located) return located.error();
  const int dir = located->dir.get();
  const std::string& name = located->name;
  ignore_lease_signals();

  // The file as it is now, through a descriptor that stays on it and a read
  // lease: the swap below must replace exactly this file, with exactly this
  // content, and nobody can start writing into it until we are done.
  Fd old(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  int ours_leased = -1;  // the temp file's descriptor, once it holds a lease
  auto changed_now = [&]() -> Outcome<Replaced> {
    // Our leases go first: reading a file we hold a write lease on would wait on ourselves.
    if (ours_leased >= 0) ::fcntl(ours_leased, F_SETLEASE, F_UNLCK);
    old = Fd();
    auto fresh = read(real_rel, max_bytes);
    if (!fresh) return fresh.error();
    return Replaced{{}, std::move(*fresh)};
  };
  if (!old && errno != ENOENT) {
    if (errno == ELOOP)
      return Failure{Reason::path_escape, "'" + real_rel + "' became a symlink while it was being written"};
    return os_failure("cannot read", real_rel, errno);
  }
  mode_t mode = 0666 & ~umask_;
  struct stat first{};
  bool old_leased = false;
  if (old) {
    struct stat& st = first;
    if (::fstat(old.get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
    if (!S_ISREG(st.st_mode))
      return Failure{Reason::file_not_found, "'" + real_rel + "' is " + kind_of(st.st_mode) + ", not a file"};
    if (!seen.exists) return changed_now();
    old_leased = lease_to_read(old.get());
    if (::fstat(old.get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
    mode = st.st_mode & 07777;
    if (stamp_of(st) != seen) {
      auto bytes = read_all(old.get(), max_bytes);
      if (!bytes || !same(*bytes)) return changed_now();
    }
  } else if (seen.exists) {
    return Replaced{{}, FileContent{}};
  }

  std::string tmp;
  auto fd = write_temp(dir, name, real_rel, chunks, mode, tmp);
  if (!fd) return fd.error();
  auto written = [&]() -> Outcome<Replaced> {
    struct stat st;
    if (::fstat(fd->get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
    return Replaced{stamp_of(st), std::nullopt};
  };
  auto give_up = [&](const char* what) -> Outcome<Replaced> {
    int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return os_failure(what, real_rel, err);
  };

  if (!old) {
    // A new file: it must still not exist.
    if (::renameat2(dir, tmp.c_str(), dir, name.c_str(), RENAME_NOREPLACE) == 0) return written();
    if (errno == EEXIST) {
      ::unlinkat(dir, tmp.c_str(), 0);
      return changed_now();
    }
    if (errno != EINVAL && errno != ENOSYS) return give_up("cannot create");
    // A file system without renameat2's flags: a plain rename, after a last look.
    if (::faccessat(dir, name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
      ::unlinkat(dir, tmp.c_str(), 0);
      return changed_now();
    }
    if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) return give_up("cannot create");
    return written();
  }

  // A write lease on ours: whoever opens it once it is in place waits until
  // we know whether it stays, and we learn that someone is waiting.
  if (::fcntl(fd->get(), F_SETLEASE, F_WRLCK) == 0) ours_leased = fd->get();

  // A last look, the instant before the swap, keeps the time a save made
  // meanwhile is swapped out (and back) as short as it can be.
  {
    struct stat now, kept;
    if (::fstatat(dir, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || ::fstat(old.get(), &kept) != 0 ||
        now.st_dev != kept.st_dev || now.st_ino != kept.st_ino || kept.st_size != first.st_size ||
        kept.st_mtim.tv_sec != first.st_mtim.tv_sec || kept.st_mtim.tv_nsec != first.st_mtim.tv_nsec) {
      ::unlinkat(dir, tmp.c_str(), 0);
      return changed_now();
    }
  }
  if (!exchange(dir, tmp, name)) {
    if (errno == ENOENT) {  // removed meanwhile
      ::unlinkat(dir, tmp.c_str(), 0);
      return changed_now();
    }
    if (errno != EINVAL && errno != ENOSYS) return give_up("cannot replace");
    // No RENAME_EXCHANGE here: a plain rename, after a last look.
    auto bytes = read_all(old.get(), max_bytes);
    if (!same_inode(dir, name, old.get()) || !bytes || !same(*bytes)) {
      ::unlinkat(dir, tmp.c_str(), 0);
      return changed_now();
    }
    if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) return give_up("cannot replace");
    return written();
  }
  // `tmp` now names what was at `name` just before the swap. It must be the
  // file checked above, with the content checked above: a write in place
  // since then shows through `old` (the lease keeps new writers out), a save
  // by rename as another inode.
  const bool swapped_ours = same_inode(dir, tmp, old.get());
  if (swapped_ours) {
    auto bytes = old_leased ? std::optional<std::string>() : read_all(old.get(), max_bytes);
    const bool unchanged = old_leased || (bytes && same(*bytes));
    // An in-place save that opened the file before the swap waits on our
    // lease to write into it: it goes back in place, so that save lands.
    if (unchanged && !(old_leased && waiting_opener(old.get(), F_RDLCK) == F_UNLCK)) {
      auto done = written();
      ::unlinkat(dir, tmp.c_str(), 0);
      return done;
    }
  }
  // Someone saved in between (or waits to): swap their file back. If `name`
  // no longer holds ours, a newer save went there after the swap: that one
  // stays, and the older one, which it replaced, is dropped.
  if (!same_inode(dir, name, fd->get())) {
    ::unlinkat(dir, tmp.c_str(), 0);
    return changed_now();
  }
  Fd theirs(::openat(dir, tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (exchange(dir, tmp, name) && !same_inode(dir, tmp, fd->get())) {
    exchange(dir, tmp, name);  // a newer save came between the look and the swap back
    ::unlinkat(dir, tmp.c_str(), 0);
    return changed_now();
  }
  if (ours_leased >= 0 && theirs) {
    // Whoever opened ours while it was in place has waited on the lease and
    // reads it once we let go: it gets the save, not a file without it. A
    // writer waiting on ours writes into it, so ours goes back in place.
    if (copy_into(fd->get(), theirs.get(), max_bytes) && waiting_opener(fd->get(), F_WRLCK) == F_UNLCK)
      exchange(dir, tmp, name);
  }
  ::unlinkat(dir, tmp.c_str(), 0);
  return changed_now();
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
