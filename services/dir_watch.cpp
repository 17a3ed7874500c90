#include "services/dir_watch.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/inotify.h>
#include <unistd.h>

namespace services {

namespace {
constexpr auto longest_wait = std::chrono::seconds(1);
}  // namespace

Result<std::unique_ptr<DirWatch>> DirWatch::open(boost::asio::any_io_executor ex, Options options,
                                                 std::function<void(const std::string& name)> saved) {
  std::error_code ec;
  if (options.create) std::filesystem::create_directories(options.dir, ec);
  if (ec) return Failure{Error::io, "cannot create " + options.dir + ": " + ec.message()};
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Failure{Error::io, std::string("inotify: ") + std::strerror(errno)};
  std::unique_ptr<DirWatch> w(new DirWatch(std::move(ex), std::move(options), fd, std::move(saved)));
  w->mask_ = IN_CLOSE_WRITE | IN_MOVED_TO | (w->opt_.modifications ? IN_MODIFY : 0u);
  if (!w->watch_dir()) {
    // Not there yet (debug/ before the first page): its parent says when it is.
    const std::string parent = std::filesystem::path(w->opt_.dir).parent_path().string();
    w->parent_wd_ = ::inotify_add_watch(fd, parent.c_str(), IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    if (w->parent_wd_ < 0) {
      const int e = errno;
      return Failure{Error::io, "cannot watch " + parent + ": " + std::strerror(e) +
                                    (e == ENOSPC ? " (raise fs.inotify.max_user_watches)" : "")};
    }
    w->watch_dir();  // made in the meantime
  }
  w->read();
  return w;
}

bool DirWatch::watch_dir() {
  dir_wd_ = ::inotify_add_watch(fd_.native_handle(), opt_.dir.c_str(), mask_ | IN_ONLYDIR);
  return dir_wd_ >= 0;
}

DirWatch::DirWatch(boost::asio::any_io_executor ex, Options options, int fd,
                   std::function<void(const std::string&)> saved)
    : opt_(std::move(options)), fd_(ex, fd), timer_(ex), saved_(std::move(saved)) {}

DirWatch::~DirWatch() { close(); }

void DirWatch::close() {
  closed_ = true;
  boost::system::error_code ignored;
  fd_.close(ignored);
  timer_.cancel();
}

void DirWatch::read() {
  fd_.async_read_some(boost::asio::buffer(buf_), [this](boost::system::error_code ec, std::size_t n) {
    if (ec || closed_) return;
    const auto now = clock::now();
    for (std::size_t at = 0; at + sizeof(inotify_event) <= n;) {
      inotify_event ev;
      std::memcpy(&ev, buf_.data() + at, sizeof ev);
      const std::size_t len = ev.len;
      if (len > 0 && at + sizeof ev + len <= n) {
        const std::string name(buf_.data() + at + sizeof ev);  // NUL-padded
            if (ev.wd == parent_wd_) {
          if (name == std::filesystem::path(opt_.dir).filename().string() && watch_dir()) {
            ::inotify_rm_watch(fd_.native_handle(), parent_wd_);
            parent_wd_ = -1;
          }
        } else if (ev.wd == dir_wd_ && name.size() > opt_.suffix.size() &&
            name.compare(name.size() - opt_.suffix.size(), opt_.suffix.size(), opt_.suffix) == 0) {
          auto [it, fresh] = dirty_.try_emplace(name, Dirty{now, now});
          it->second.last = now;
        }
      }
      at += sizeof ev + len;
    }
    arm();
    read();
  });
}

// The timer waits for the first file due: quiet for `settle`, or changing
// for a second. One wait at a time: a later change only moves it on.
void DirWatch::arm() {
  if (dirty_.empty() || waiting_) return;
  auto due = clock::time_point::max();
  for (const auto& [name, d] : dirty_) due = std::min(due, std::min(d.last + opt_.settle, d.first + longest_wait));
  waiting_ = true;
  timer_.expires_at(due);
  timer_.async_wait([this](boost::system::error_code ec) {
    waiting_ = false;
    if (!ec && !closed_) fire();
  });
}

void DirWatch::fire() {
  const auto now = clock::now();
  std::vector<std::string> ready;
  for (auto it = dirty_.begin(); it != dirty_.end();) {
    if (it->second.last + opt_.settle <= now || it->second.first + longest_wait <= now) {
      ready.push_back(it->first);
      it = dirty_.erase(it);
    } else {
      ++it;
    }
  }
  for (const std::string& name : ready) saved_(name);
  arm();
}

}  // namespace services
