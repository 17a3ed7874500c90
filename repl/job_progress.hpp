// A page's jobs as its status files count them (status_files.cpp): the
// newest accepted (ack.marker), the open ones with their blocks (accepted,
// reply not committed yet: status.json's progress), and the newest
// completed in turn (completed.marker). A job completed out of turn (a
// queued one cancelled while an older one runs) is passed only once every
// older open job is done too. Each page has one, on the REPL's executor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace repl {

class JobProgress {
 public:
  struct Blocks {
    std::size_t total = 1, done = 0;
  };

  // Accepted, with `blocks` to run.
  void accepted(std::uint64_t job, std::size_t blocks);
  // `done` of an open job's blocks have run; ran_all: it runs no more
  // (finished, failed, or cancelled before it started).
  void ran(std::uint64_t job, std::size_t done);
  void ran_all(std::uint64_t job);
  // The job's last reply is committed, ending as `status` ("ok" or an error
  // code): true when the newest completed moved.
  bool replied(std::uint64_t job, const std::string& status);

  // Nothing accepted waits for its reply's commit.
  bool settled() const { return open_.empty() && completed_ >= acked_; }
  std::uint64_t acked() const { return acked_; }
  std::uint64_t completed() const { return completed_; }
  const std::string& completed_status() const { return completed_status_; }
  bool any_open() const { return !open_.empty(); }
  std::uint64_t newest_open() const { return open_.empty() ? 0 : open_.rbegin()->first; }
  // Of the open jobs' blocks, the percentage done (100 when they have none).
  std::int64_t percent() const;

 private:
  std::uint64_t acked_ = 0, completed_ = 0;
  std::string completed_status_;
  std::map<std::uint64_t, Blocks> open_;
  std::map<std::uint64_t, std::string> done_early_;  // replied, waiting for older open jobs; with how each ended
};

}  // namespace repl
