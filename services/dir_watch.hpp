// Files saved into one folder, seen through inotify on an Asio descriptor:
// a file is reported once it has been quiet for `settle` (a save in several
// writes is read once, whole), and at the latest a second after its first
// change, so a writer that never pauses is still heard.
#pragma once

#include "services/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace services {

class DirWatch {
 public:
  struct Options {
    std::string dir;
    bool create = true;  // else a missing folder is watched for from its parent
    std::string suffix;  // only names ending so (".md")
    std::chrono::milliseconds settle{150};
    // Besides close-after-write and renames into the folder: plain writes
    // (a writer that keeps the file open). Off where a half-written file
    // must never be read.
    bool modifications = false;
  };
  // `saved(name)` runs on `ex` with the file's name in the folder.
  static Result<std::unique_ptr<DirWatch>> open(boost::asio::any_io_executor ex, Options options,
                                                std::function<void(const std::string& name)> saved);
  ~DirWatch();
  void close();

 private:
  DirWatch(boost::asio::any_io_executor ex, Options options, int fd, std::function<void(const std::string&)> saved);
  bool watch_dir();
  void read();
  void arm();
  void fire();

  using clock = std::chrono::steady_clock;
  struct Dirty {
    clock::time_point first, last;
  };
  Options opt_;
  boost::asio::posix::stream_descriptor fd_;
  boost::asio::steady_timer timer_;
  std::function<void(const std::string&)> saved_;
  std::map<std::string, Dirty> dirty_;
  std::array<char, 16 * 1024> buf_{};
  int dir_wd_ = -1, parent_wd_ = -1;
  std::uint32_t mask_ = 0;
  bool waiting_ = false;
  bool closed_ = false;
};

}  // namespace services
