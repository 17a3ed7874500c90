// The workspace's writes: a temp file next to the target and a rename
// (write_atomic), and the replace that never loses a concurrent save
// (replace: a renameat2 exchange, a check of what it swapped out, and a
// swap back when that was someone else's save).
#include "editproto/workspace.hpp"

#include "editproto/workspace_os.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <optional>

namespace editproto {

using namespace detail;

namespace {

// A temp file next to `name` holding `chunks`, in the mode `mode`; its
// name goes to `tmp` and its descriptor stays open for reading.
Outcome<Fd> write_temp(int dir, const std::string& name, const std::string& real_rel,
                       std::span<const std::string_view> chunks, mode_t mode, std::string& tmp) {
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

}  // namespace

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

// One call of Workspace::replace, in its steps: look at the file as it is
// now, write ours next to it, then create it (no file before) or swap ours
// in and settle who keeps the place. Each step ends the call with its
// outcome or lets the next one go on. The descriptors close in the order
// the steps opened them, in reverse: ours (and its lease) before the old one.
class Replacement {
 public:
  using Result = Outcome<Workspace::Replaced>;

  Replacement(const Workspace& ws, int dir, const std::string& name, const std::string& real_rel,
              const std::function<bool(std::string_view)>& same, std::size_t max_bytes, mode_t mode)
      : ws_(ws), dir_(dir), name_(name), real_rel_(real_rel), same_(same), max_bytes_(max_bytes), mode_(mode) {}

  Result run(std::span<const std::string_view> chunks, const Stamp& seen) {
    if (auto done = look_at_current(seen)) return std::move(*done);
    auto fd = write_temp(dir_, name_, real_rel_, chunks, mode_, tmp_);
    if (!fd) return fd.error();
    fd_ = std::move(*fd);
    if (!old_) return create();
    // A write lease on ours: whoever opens it once it is in place waits until
    // we know whether it stays, and we learn that someone is waiting.
    if (::fcntl(fd_.get(), F_SETLEASE, F_WRLCK) == 0) ours_leased_ = fd_.get();
    if (auto done = swap_in()) return std::move(*done);
    return settle();
  }

 private:
  Result changed_now() {
    // Our leases go first: reading a file we hold a write lease on would wait on ourselves.
    if (ours_leased_ >= 0) ::fcntl(ours_leased_, F_SETLEASE, F_UNLCK);
    old_ = Fd();
    auto fresh = ws_.read(real_rel_, max_bytes_);
    if (!fresh) return fresh.error();
    return Workspace::Replaced{{}, std::move(*fresh)};
  }

  // What `tmp` names goes (ours, when it is not written; or a save ours
  // took the bytes of), and the caller gets what is there now.
  Result drop_tmp() {
    ::unlinkat(dir_, tmp_.c_str(), 0);
    return changed_now();
  }

  // Ours becomes the save in `theirs`: its bytes and its mode. Nobody has
  // opened ours since it stood (its lease makes them wait), so whoever opens
  // it next reads the save. False when the copy failed: ours may be torn
  // then, and the save's own file must go back in place.
  bool take_over(int theirs) {
    struct stat st;
    return ::fstat(theirs, &st) == 0 && S_ISREG(st.st_mode) && copy_into(fd_.get(), theirs, max_bytes_) &&
           ::fchmod(fd_.get(), st.st_mode & 07777) == 0;
  }

  Result written() {
    struct stat st;
    if (::fstat(fd_.get(), &st) != 0) return os_failure("cannot inspect", real_rel_, errno);
    return Workspace::Replaced{stamp_of(st), std::nullopt};
  }

  Result give_up(const char* what) {
    int err = errno;
    ::unlinkat(dir_, tmp_.c_str(), 0);
    return os_failure(what, real_rel_, err);
  }

  // The file as it is now, through a descriptor that stays on it and a read
  // lease: the swap below must replace exactly this file, with exactly this
  // content, and nobody can start writing into it until we are done.
  std::optional<Result> look_at_current(const Stamp& seen) {
    old_ = Fd(::openat(dir_, name_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!old_ && errno != ENOENT) {
      if (errno == ELOOP)
        return Failure{Reason::path_escape, "'" + real_rel_ + "' became a symlink while it was being written"};
      return os_failure("cannot read", real_rel_, errno);
    }
    if (old_) {
      struct stat& st = first_;
      if (::fstat(old_.get(), &st) != 0) return os_failure("cannot inspect", real_rel_, errno);
      if (!S_ISREG(st.st_mode))
        return Failure{Reason::file_not_found, "'" + real_rel_ + "' is " + kind_of(st.st_mode) + ", not a file"};
      if (!seen.exists) return changed_now();
      old_leased_ = lease_to_read(old_.get());
      if (::fstat(old_.get(), &st) != 0) return os_failure("cannot inspect", real_rel_, errno);
      mode_ = st.st_mode & 07777;
      if (stamp_of(st) != seen) {
        auto bytes = read_all(old_.get(), max_bytes_);
        if (!bytes || !same_(*bytes)) return changed_now();
      }
    } else if (seen.exists) {
      return Workspace::Replaced{{}, FileContent{}};
    }
    return std::nullopt;
  }

  // A new file: it must still not exist.
  Result create() {
    if (::renameat2(dir_, tmp_.c_str(), dir_, name_.c_str(), RENAME_NOREPLACE) == 0) return written();
    if (errno == EEXIST) return drop_tmp();
    if (errno != EINVAL && errno != ENOSYS) return give_up("cannot create");
    // A file system without renameat2's flags: a plain rename, after a last look.
    if (::faccessat(dir_, name_.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) return drop_tmp();
    if (::renameat(dir_, tmp_.c_str(), dir_, name_.c_str()) != 0) return give_up("cannot create");
    return written();
  }

  // Ours in place of the file looked at: nothing when the swap was made (what
  // it swapped out is settled next), else the call's outcome.
  std::optional<Result> swap_in() {
    // A last look, the instant before the swap, keeps the time a save made
    // meanwhile is swapped out (and back) as short as it can be.
    {
      struct stat now, kept;
      if (::fstatat(dir_, name_.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || ::fstat(old_.get(), &kept) != 0 ||
          now.st_dev != kept.st_dev || now.st_ino != kept.st_ino || kept.st_size != first_.st_size ||
          kept.st_mtim.tv_sec != first_.st_mtim.tv_sec || kept.st_mtim.tv_nsec != first_.st_mtim.tv_nsec)
        return drop_tmp();
    }
    if (!exchange(dir_, tmp_, name_)) {
      if (errno == ENOENT) return drop_tmp();  // removed meanwhile
      if (errno != EINVAL && errno != ENOSYS) return give_up("cannot replace");
      // No RENAME_EXCHANGE here: a plain rename, after a last look.
      auto bytes = read_all(old_.get(), max_bytes_);
      if (!same_inode(dir_, name_, old_.get()) || !bytes || !same_(*bytes)) return drop_tmp();
      if (::renameat(dir_, tmp_.c_str(), dir_, name_.c_str()) != 0) return give_up("cannot replace");
      return written();
    }
    return std::nullopt;
  }

  // After the swap: ours stays, or the save it swapped out goes back.
  Result settle() {
    // `tmp` now names what was at `name` just before the swap. It must be the
    // file checked above, with the content checked above: a write in place
    // since then shows through `old` (the lease keeps new writers out), a save
    // by rename as another inode.
    const bool swapped_ours = same_inode(dir_, tmp_, old_.get());
    if (swapped_ours) {
      auto bytes = old_leased_ ? std::optional<std::string>() : read_all(old_.get(), max_bytes_);
      const bool unchanged = old_leased_ || (bytes && same_(*bytes));
      // An in-place save that opened the file before the swap waits on our
      // lease to write into it: it goes back in place, so that save lands.
      if (unchanged && !(old_leased_ && waiting_opener(old_.get(), F_RDLCK) == F_UNLCK)) {
        auto done = written();
        ::unlinkat(dir_, tmp_.c_str(), 0);
        return done;
      }
    }
    // Someone saved in between (or waits to): swap their file back. If `name`
    // no longer holds ours, a newer save went there after the swap: that one
    // stays, and the older one, which it replaced, is dropped.
    if (!same_inode(dir_, name_, fd_.get())) return drop_tmp();
    Fd theirs(::openat(dir_, tmp_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    // A save by rename that came just before the swap: ours takes its bytes
    // and stays. Swapping the save's file back would stand it, for an
    // instant, where a newer save of the same writer may already be, and a
    // writer that reads then builds on it and drops every save after it.
    if (!swapped_ours && ours_leased_ >= 0 && theirs && take_over(theirs.get())) return drop_tmp();
    if (exchange(dir_, tmp_, name_) && !same_inode(dir_, tmp_, fd_.get())) {
      exchange(dir_, tmp_, name_);  // a newer save came between the look and the swap back
      return drop_tmp();
    }
    if (ours_leased_ >= 0 && theirs) {
      // Whoever opened ours while it was in place has waited on the lease and
      // reads it once we let go: it gets the save, not a file without it. A
      // writer waiting on ours writes into it, so ours goes back in place.
      if (copy_into(fd_.get(), theirs.get(), max_bytes_) && waiting_opener(fd_.get(), F_WRLCK) == F_UNLCK)
        exchange(dir_, tmp_, name_);
    }
    return drop_tmp();
  }

  const Workspace& ws_;
  const int dir_;
  const std::string& name_;
  const std::string& real_rel_;
  const std::function<bool(std::string_view)>& same_;
  const std::size_t max_bytes_;
  mode_t mode_;                // of the file written: the old file's, or the default
  Fd old_;                     // the file looked at, while the call needs it
  struct stat first_{};        // what it was when looked at
  bool old_leased_ = false;    // it holds our read lease
  int ours_leased_ = -1;       // the temp file's descriptor, once it holds a lease
  std::string tmp_;            // the temp file's name
  Fd fd_;                      // the temp file
};

}  // namespace

Outcome<Workspace::Replaced> Workspace::replace(const std::string& real_rel, std::span<const std::string_view> chunks,
                                                const Stamp& seen, const std::function<bool(std::string_view)>& same,
                                                std::size_t max_bytes) const {
  auto located = locate(real_rel, true);
  if (!located) return located.error();
  ignore_lease_signals();
  return Replacement(*this, located->dir.get(), located->name, real_rel, same, max_bytes, 0666 & ~umask_)
      .run(chunks, seen);
}

}  // namespace editproto
