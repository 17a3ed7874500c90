// A page's jobs as the status files count them (repl/job_progress.hpp):
// accepted, their blocks run, and completed in turn.
#include "repl/job_progress.hpp"

#include <catch2/catch.hpp>

using repl::JobProgress;

TEST_CASE("open jobs' blocks make the progress, and a reply's commit completes its job", "[repl][unit]") {
  JobProgress jobs;
  CHECK(jobs.settled());
  CHECK_FALSE(jobs.any_open());
  CHECK(jobs.percent() == 100);
  jobs.accepted(3, 3);
  jobs.accepted(4, 1);
  CHECK(jobs.acked() == 4);
  CHECK(jobs.newest_open() == 4);
  CHECK_FALSE(jobs.settled());
  CHECK(jobs.percent() == 0);
  jobs.ran(3, 2);
  CHECK(jobs.percent() == 50);  // 2 of 4 blocks
  jobs.ran_all(3);
  CHECK(jobs.percent() == 75);
  jobs.ran(9, 1);  // not open: nothing to count
  CHECK(jobs.percent() == 75);

  CHECK(jobs.replied(3, "ok"));
  CHECK(jobs.completed() == 3);
  CHECK(jobs.completed_status() == "ok");
  CHECK(jobs.percent() == 0);
  CHECK(jobs.replied(4, "timeout"));
  CHECK(jobs.completed() == 4);
  CHECK(jobs.completed_status() == "timeout");
  CHECK(jobs.settled());
}

TEST_CASE("a job completed out of turn waits for every older open job", "[repl][unit]") {
  JobProgress jobs;
  jobs.accepted(1, 1);
  jobs.accepted(2, 1);
  jobs.accepted(3, 1);
  // Job 2 was cancelled in the queue while job 1 runs: it is not completed yet.
  jobs.ran_all(2);
  CHECK_FALSE(jobs.replied(2, "interrupted"));
  CHECK(jobs.completed() == 0);
  CHECK(jobs.newest_open() == 3);
  // Job 1's reply passes both, and says how the newest of them ended.
  CHECK(jobs.replied(1, "ok"));
  CHECK(jobs.completed() == 2);
  CHECK(jobs.completed_status() == "interrupted");
  CHECK_FALSE(jobs.settled());
  CHECK(jobs.replied(3, "ok"));
  CHECK(jobs.completed() == 3);
  CHECK(jobs.settled());
}
