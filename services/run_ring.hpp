// The gateway's recent edit runs, committed or not: what the runs op lists
// and where show finds a block's diagnostic (a commit message does not hold
// it; a run that failed makes no commit at all). In memory and bounded: a
// restart starts it empty. Worker thread only.
#pragma once

#include "services/error.hpp"
#include "record/run_report.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace services {

// How a run ended, beyond its report: which door it came through, whose it
// was, when it began, and why its stream was cut off when it was.
struct RunEnd {
  std::string door;  // "ws edit", "POST /v1/edits", "inbox 1.md", ...
  std::string agent;
  std::chrono::system_clock::time_point started;
  std::optional<Error> cut;
};

class RunRing {
 public:
  static constexpr std::size_t max_runs = 200;           // the oldest go first
  static constexpr std::size_t max_blocks = 200;          // per run; the rest counted in blocks_cut
  static constexpr std::size_t max_diagnostic = 4096;     // bytes of one block's diagnostic
  static constexpr std::size_t max_run_diagnostics = 64 * 1024;  // bytes of diagnostics per run

  // Keeps the run as the runs op gives it, then calls on_run with it.
  void record(const record::RunReport& report, const RunEnd& end);

  // The newest `limit` runs, newest first.
  boost::json::array newest(std::size_t limit) const;

  // The run one of whose commits is `commit` (40 hex), or nullptr.
  const boost::json::object* made(std::string_view commit) const;

  // Called on the worker thread with each run recorded (the dashboard's
  // live run event). May be empty.
  std::function<void(const boost::json::object& run)> on_run;

 private:
  struct Kept {
    boost::json::object run;
    std::vector<std::string> commits;  // every commit the run made
  };
  std::deque<Kept> runs_;  // oldest first
  std::int64_t next_id_ = 1;
};

}  // namespace services
