#include "git/commit_lock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <utility>

namespace editgit::detail {

namespace {

long long ns(const struct timespec& t) { return static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

bool process_gone(long pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

}  // namespace

Result<CommitLock> CommitLock::take(const std::string& gitdir, const std::string& commondir,
                                    Clock::time_point deadline) {
  const std::string path = commondir + "editgate-commit.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Failure{Error::io, "cannot open " + path + ": " + std::strerror(errno)};
  auto pause = std::chrono::milliseconds(2);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      ::close(fd);
      return Failure{Error::io, "cannot lock " + path + ": " + std::strerror(err)};
    }
    if (Clock::now() >= deadline) {
      char buf[64] = {};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      std::string holder = n > 4 && std::strncmp(buf, "pid ", 4) == 0 ? std::string(buf + 4, std::strcspn(buf + 4, "\n")) : "";
      return Failure{Error::locked, "another editgate" + (holder.empty() ? "" : " (pid " + holder + ")") +
                                        " is committing in this repository and did not finish in time (" + path + ")"};
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  CommitLock lock(fd, path);
  lock.clear_stale(gitdir, commondir);
  lock.write_record("pid " + std::to_string(::getpid()) + "\n");
  return lock;
}

CommitLock::CommitLock(CommitLock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), cleared_(std::move(o.cleared_)) {}

CommitLock::~CommitLock() {
  if (fd_ < 0) return;
  write_record("");
  ::close(fd_);  // which lets go of the flock
}

void CommitLock::write_record(const std::string& text) {
  // No fsync: the record must outlive this process, not the machine (a reboot
  // ends every git process, and git's own locks have the same durability).
  if (::pwrite(fd_, text.data(), text.size(), 0) < 0) return;
  if (::ftruncate(fd_, static_cast<off_t>(text.size())) != 0) return;
}

void CommitLock::holding(const std::string& lock_path) {
  write_record("pid " + std::to_string(::getpid()) + "\nlock " + lock_path + "\n");
}

void CommitLock::released() { write_record("pid " + std::to_string(::getpid()) + "\n"); }

// The holder before us is gone (its flock went with it). A lock its record
// names is its own when the lock was made no earlier than that record entry:
// the entry is written just before the lock is created and cleared right
// after it is released, and a git process that held the lock before (the
// reason our holder was waiting) made it earlier. Anything else is left alone.
void CommitLock::clear_stale(const std::string& gitdir, const std::string& commondir) {
  cleared_.clear();
  struct stat record;
  if (::fstat(fd_, &record) != 0 || record.st_size == 0 || record.st_size > 65536) return;
  std::string text(static_cast<std::size_t>(record.st_size), '\0');
  if (::pread(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("lock ") || !line.ends_with(".lock")) continue;
    const std::string lock = line.substr(5);
    // Only git's own locks, inside this repository.
    if ((!lock.starts_with(gitdir) && !lock.starts_with(commondir)) || lock.find("/../") != std::string::npos) continue;
    struct stat st;
    if (::lstat(lock.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (ns(st.st_ctim) < ns(record.st_mtim)) continue;
    if (::unlink(lock.c_str()) == 0) cleared_.push_back(lock);
  }
  // The index's private links (IndexFile) of editgates no longer running.
  if (DIR* d = ::opendir(gitdir.c_str())) {
    std::vector<std::string> stale;
    while (const dirent* e = ::readdir(d)) {
      std::string_view n = e->d_name;
      if (!n.starts_with("index.editgate-")) continue;
      const long owner = std::strtol(std::string(n.substr(15)).c_str(), nullptr, 10);
      if (owner != ::getpid() && process_gone(owner)) stale.emplace_back(n);
    }
    ::closedir(d);
    for (const std::string& n : stale) ::unlink((gitdir + n).c_str());
  }
}

}  // namespace editgit::detail
