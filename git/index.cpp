#include "git/index.hpp"

#include "git/handle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

namespace editgit::detail {

namespace {

// Inode, size and mtime: git replaces the index by rename, so a file written
// by anyone else has another inode.
std::string stamp_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

Failure os_failure(const std::string& what) { return {Error::io, what + ": " + std::strerror(errno)}; }

}  // namespace

IndexFile::IndexFile(const std::string& gitdir) : real_(gitdir + "index"), lock_(gitdir + "index.lock") {
  static std::atomic<unsigned> counter{0};
  work_ = gitdir + "index.editgate-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

IndexFile::~IndexFile() {
  if (index_) git_index_free(index_);
}

Result<void> IndexFile::sync() {
  const std::string now = stamp_of(real_);
  if (index_ && !now.empty() && now == stamp_) return {};  // the file we hold in memory
  if (now.empty()) {  // no index file yet (a new repository), or it was deleted
    int rc = index_ ? git_index_clear(index_) : git_index_open(&index_, work_.c_str());
    if (rc < 0) return failure(rc, "cannot create an empty index");
    stamp_.clear();
    return {};
  }
  ::unlink(work_.c_str());
  if (::link(real_.c_str(), work_.c_str()) != 0) return os_failure("cannot read " + real_);
  const std::string linked = stamp_of(work_);  // exactly the file read below
  int rc = index_ ? git_index_read(index_, 1) : git_index_open(&index_, work_.c_str());
  ::unlink(work_.c_str());
  if (rc < 0) return failure(rc, "cannot read the index " + real_);
  stamp_ = linked;
  return {};
}

Result<git_index*> IndexFile::current() {
  if (auto ok = sync(); !ok) return ok.error();
  return index_;
}

Result<void> IndexFile::update(std::chrono::steady_clock::time_point deadline,
                               const std::function<int(git_index*)>& edit) {
  // Taking the lock is an exclusive create. A hard link of the index is one
  // (it fails when the name exists) and costs no new inode; git never reads
  // the lock's content, only its existence matters.
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    if (::link(real_.c_str(), lock_.c_str()) == 0) break;
    if (errno == ENOENT) {  // no index yet: an empty lock file
      int fd = ::open(lock_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        ::close(fd);
        break;
      }
    }
    if (errno != EEXIST) return os_failure("cannot create " + lock_);
    if (std::chrono::steady_clock::now() >= deadline)
      return Failure{Error::locked, lock_ + " is held by another git process"};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  struct Release {
    const std::string& lock;
    const std::string& work;
    ~Release() {
      ::unlink(work.c_str());
      ::unlink(lock.c_str());
    }
  } release{lock_, work_};

  if (auto ok = sync(); !ok) return ok.error();
  if (int rc = edit(index_); rc < 0) return failure(rc, "cannot update the index");
  if (int rc = git_index_write(index_); rc < 0) return failure(rc, "cannot write the index");
  if (::rename(work_.c_str(), real_.c_str()) != 0) return os_failure("cannot replace " + real_);
  stamp_ = stamp_of(real_);
  return {};
}

}  // namespace editgit::detail
