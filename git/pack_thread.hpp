// Keeps side refs packed while commits land on them: each commit on the
// REPL's ref writes the whole log again as a loose object, so without this
// `.git` grows like the square of the log. A thread of its own, at a low
// CPU priority (nice 10), runs Packer::pack_new then Packer::merge for a
// ref once `every` commits have landed on it since its last pack, and when
// its commits pause for `idle`: no commit and no exchange ever waits for a
// pack. Under a load that keeps both cores busy it gets about a tenth of
// one, and what it has not packed waits for the next pause; what it leaves
// when killed is the packer's to finish (git/packer.hpp).
#pragma once

#include "git/error.hpp"
#include "git/packer.hpp"
#include "git/worker_loop.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace editgit {

struct PackThreadOptions {
  std::size_t every = 64;                 // commits on a ref between two packs of it
  std::chrono::milliseconds idle{2000};   // a ref whose commits pause this long is packed
  PackerOptions packer;                   // its `stop` is the thread's own
  // What went wrong in a call (the thread has no one to answer): the
  // owner's log. Called on the thread.
  std::function<void(std::string_view)> report;
};

class PackThread {
 public:
  // Opens the packer on the repository whose git folder is `gitdir` and
  // starts the thread.
  static Result<std::unique_ptr<PackThread>> start(const std::string& gitdir, PackThreadOptions options = {});
  ~PackThread();  // stop()
  PackThread(const PackThread&) = delete;
  PackThread& operator=(const PackThread&) = delete;

  // A commit landed on `ref` (any thread).
  void committed(const std::string& ref);
  // Packs every ref with commits not yet packed, now, and returns once that
  // is done (tests, benchmarks; the gateway never waits for it).
  void drain();
  // Gives up a call under way (within about half a second; nothing is
  // removed) and joins the thread. What is loose stays for the next start.
  void stop();

  // Calls made and what they did, summed (tests, benchmarks).
  struct Totals {
    std::size_t calls = 0;
    std::size_t failures = 0;
    std::size_t loose_removed = 0;
    std::size_t packs_merged = 0;
  };
  Totals totals() const;

 private:
  using Clock = std::chrono::steady_clock;
  explicit PackThread(PackThreadOptions options) : opt_(std::move(options)) {}
  // Commits on a ref since the thread last looked (consecutive ones
  // coalesce), or a drain.
  struct Note {
    std::string ref;
    std::size_t commits = 0;
    Clock::time_point last;
    bool drain = false;
  };
  // On the thread: takes in the notes, packs the refs due, and says when
  // the next pause ends.
  std::optional<Clock::time_point> step(std::vector<Note>& notes);
  void pack(const std::string& ref);

  struct Pending {
    std::size_t commits = 0;
    Clock::time_point last;
  };

  PackThreadOptions opt_;
  std::atomic<bool> stopping_{false};  // the packer's stop flag too
  std::map<std::string, Pending> pending_;  // refs with commits not yet packed; the thread only
  std::optional<Packer> packer_;  // the thread only
  // Guards totals_: the thread adds to them, totals() reads them on any thread.
  mutable std::mutex totals_mutex_;
  Totals totals_;
  std::optional<WorkerLoop<Note>> loop_;  // started once the packer is open
};

}  // namespace editgit
