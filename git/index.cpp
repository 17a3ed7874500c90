#include "git/index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

namespace editgit::detail {

namespace {

// Inode, size and mtime: git replaces the index by rename, so a file written
// by anyone else has another inode.
std::string stamp_of(const struct stat& st) {
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string stamp_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return stamp_of(st);
}

bool before(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

// The file's mtime when one of its entries is racily clean in git's sense
// (changed no earlier than the index was written).
std::optional<struct timespec> racy_floor(const IndexImage& image, const struct timespec& file_mtime) {
  for (const IndexImage::Entry& e : image.entries()) {
    const char* at = image.bytes().data() + e.offset + 8;  // mtime: seconds, then nanoseconds
    const auto* u = reinterpret_cast<const unsigned char*>(at);
    const struct timespec m = {static_cast<time_t>((std::uint32_t{u[0]} << 24) | (u[1] << 16) | (u[2] << 8) | u[3]),
                               static_cast<long>((std::uint32_t{u[4]} << 24) | (u[5] << 16) | (u[6] << 8) | u[7])};
    if (!before(m, file_mtime)) return file_mtime;
  }
  return std::nullopt;
}

Failure os_failure(const std::string& what) { return {Error::io, what + ": " + std::strerror(errno)}; }

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

IndexFile::IndexFile(const std::string& gitdir) : real_(gitdir + "index"), lock_(gitdir + "index.lock") {
  static std::atomic<unsigned> counter{0};
  work_ = gitdir + "index.editgate-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

IndexFile::~IndexFile() = default;

Result<void> IndexFile::sync() {
  if (!stamp_.empty() && stamp_of(real_) == stamp_) return {};  // the file we hold in memory
  Fd in{::open(real_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) {
    if (errno != ENOENT) return os_failure("cannot read " + real_);
    image_ = IndexImage();  // no index file yet (a new repository), or it was deleted
    stamp_.clear();
    racy_floor_.reset();
    return {};
  }
  struct stat st;
  if (::fstat(in.fd, &st) != 0) return os_failure("cannot read " + real_);
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(in.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_failure("cannot read " + real_);
    if (n == 0) break;  // replaced by rename, so never shorter than its size; be safe all the same
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  auto parsed = IndexImage::parse(std::move(bytes));
  if (!parsed) {
    Failure f = parsed.error();
    f.message += " (" + real_ + ")";
    return f;
  }
  image_ = std::move(*parsed);
  stamp_ = stamp_of(st);  // exactly the file read above
  racy_floor_ = racy_floor(image_, st.st_mtim);
  return {};
}

Result<const IndexImage*> IndexFile::current() {
  if (auto ok = sync(); !ok) return ok.error();
  return &image_;
}

// next_ into a new file, which then replaces the index by rename, as git and
// libgit2 write it; the new file is read back as image_ without touching disk.
Result<void> IndexFile::write_and_replace(const std::optional<struct timespec>& mtime) {
  ::unlink(work_.c_str());
  Fd out{::open(work_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)};
  if (out.fd < 0) return os_failure("cannot create " + work_);
  for (std::size_t done = 0; done < next_.size();) {
    const ssize_t n = ::write(out.fd, next_.data() + done, next_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_failure("cannot write " + work_);
    done += static_cast<std::size_t>(n);
  }
  if (mtime) {
    const struct timespec times[2] = {{0, UTIME_OMIT}, *mtime};
    if (::futimens(out.fd, times) != 0) return os_failure("cannot set the time of " + work_);
  }
  struct stat st;
  if (::fstat(out.fd, &st) != 0) return os_failure("cannot write " + work_);
  if (before_rename) before_rename();
  auto parsed = IndexImage::parse(std::move(next_));
  if (!parsed) return parsed.error();
  if (::rename(work_.c_str(), real_.c_str()) != 0) return os_failure("cannot replace " + real_);
  next_ = std::move(image_).take_bytes();  // the old bytes' buffer serves the next write
  image_ = std::move(*parsed);
  stamp_ = stamp_of(st);
  return {};
}

void IndexFile::defer(std::vector<LaterEdit> edits) {
  for (LaterEdit& e : edits) later_.push_back(std::move(e));
}

Result<void> IndexFile::update(std::chrono::steady_clock::time_point deadline, const std::vector<IndexEdit>& edits,
                               const std::function<bool(const LaterEdit&)>& still) {
  std::vector<LaterEdit> later = std::move(later_);
  later_.clear();
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
  // Checked under the lock: a checkout or reset of the user's takes it too.
  std::vector<IndexEdit> all;
  std::optional<struct timespec> mtime = racy_floor_;  // the oldest racy entry's at most
  for (LaterEdit& e : later) {
    if (still && !still(e)) continue;
    if (e.racy && e.edit.entry) {
      const struct timespec t = {e.edit.entry->mtime.seconds, static_cast<long>(e.edit.entry->mtime.nanoseconds)};
      if (!mtime || before(t, *mtime)) mtime = t;
    }
    all.push_back(std::move(e.edit));
  }
  all.insert(all.end(), edits.begin(), edits.end());  // the last edit of a path wins
  if (all.empty()) return {};
  // A time still to come (a file dated ahead) is racy against any file written now.
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  if (mtime && !before(*mtime, now)) mtime.reset();
  image_.write_edited(all, next_);
  auto written = write_and_replace(mtime);
  if (written) racy_floor_ = mtime;
  return written;
}

}  // namespace editgit::detail
