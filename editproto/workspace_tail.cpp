// In-place tail writes (Workspace::write_tail): what a chat log's writer
// uses when only the end of a file changes, so the cost of a write is the
// bytes that change, not the file's size.
#include "editproto/workspace.hpp"

#include "editproto/workspace_os.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace editproto {

using namespace detail;

namespace {

// The lease goes with the descriptor's last close too; this lets it go
// first, so a waiting opener is not kept waiting for the stat after it.
struct Lease {
  int fd;
  ~Lease() { ::fcntl(fd, F_SETLEASE, F_UNLCK); }
};

bool read_exact(int fd, char* out, std::size_t n, off_t at) {
  while (n > 0) {
    ssize_t got = ::pread(fd, out, n, at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= static_cast<std::size_t>(got);
    at += got;
  }
  return true;
}

bool write_exact(int fd, std::string_view bytes, off_t at) {
  while (!bytes.empty()) {
    ssize_t put = ::pwrite(fd, bytes.data(), bytes.size(), at);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(put));
    at += put;
  }
  return true;
}

}  // namespace

bool Workspace::read_start(const std::string& real_rel, std::span<char> out) const {
  auto opened = open_read(real_rel);
  return opened && opened->fd && read_exact(opened->fd.get(), out.data(), out.size(), 0);
}

Outcome<Workspace::TailWrite> Workspace::write_tail(const std::string& real_rel, std::size_t offset,
                                                     std::string_view old_tail, std::string_view new_tail,
                                                     const std::function<void()>& before_write) const {
  auto located = locate(real_rel, false);
  if (!located) return located.error();
  // O_NONBLOCK: a lease someone else holds on it answers at once instead of
  // making the open wait.
  Fd fd(::openat(located->dir.get(), located->name.c_str(),
                 O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) {
    if (errno == ENOENT) return TailWrite{Tail::changed, {}};
    if (errno == EWOULDBLOCK || errno == ELOOP || errno == ENXIO) return TailWrite{Tail::unavailable, {}};
    return os_failure("cannot open", real_rel, errno);
  }
  ignore_lease_signals();
  if (::fcntl(fd.get(), F_SETLEASE, F_WRLCK) != 0) return TailWrite{Tail::unavailable, {}};
  Lease lease{fd.get()};
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
  if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) != offset + old_tail.size())
    return TailWrite{Tail::changed, {}};
  std::string there(old_tail.size(), '\0');
  if (!read_exact(fd.get(), there.data(), there.size(), static_cast<off_t>(offset)) || there != old_tail)
    return TailWrite{Tail::changed, {}};
  if (before_write) before_write();
  // One write, then a cut only when the file got shorter: a reader that
  // had it open before the lease sees the old tail or the new one growing.
  if (!write_exact(fd.get(), new_tail, static_cast<off_t>(offset)))
    return os_failure("cannot write", real_rel, errno);
  if (new_tail.size() < old_tail.size() && ::ftruncate(fd.get(), static_cast<off_t>(offset + new_tail.size())) != 0)
    return os_failure("cannot shorten", real_rel, errno);
  if (::fstat(fd.get(), &st) != 0) return os_failure("cannot inspect", real_rel, errno);
  return TailWrite{Tail::written, stamp_of(st)};
}

}  // namespace editproto
