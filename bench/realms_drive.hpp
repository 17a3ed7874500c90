// realms_bench's parts: the agents that clone and drive the realms through
// the gateway, the poller that times the commits, and the same realms
// driven in the page program alone (the floor).
#pragma once

#include "percentiles.hpp"

#include <boost/json/value.hpp>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace client {
class Ws;
}

namespace realms {

struct Args {
  std::string editgate, workdir, node = "node";
  int realms = 1000;
  int agents = 10;
  double warmup = 5;     // s before the measured window (the soak: a fifth of its time)
  double seconds = 20;   // measured, through the gateway
  double floor_seconds = 10;
  double interval = 5;   // s per table row
  int poll_ms = 5;       // the logs' ref's poll
  bool soak = false;
  bool no_floor = false;
  int reply_chars = 0;   // > 0: each eval returns a string of this many characters, not 2
  bool follow = false;   // the dashboard follows the first realm's log (the soak's default)
};
// The code each eval runs, and the value its reply must hold.
std::string eval_code(const Args& a);
bool expected_value(const Args& a, const boost::json::value& v);
Args parse_args(int argc, char** argv);

// One eval answered. Times in ms since the load started; `size` the
// realm's log's size right after the reply was read (0 for the floor).
struct Sample {
  double sent = 0, read = 0;
  std::uint32_t realm = 0;
  std::uint64_t size = 0;
};

struct Realm {
  std::string page;         // its page's name
  std::string log;          // its chat log, relative to the workspace
  std::size_t replies = 0;  // evals answered with the right value
};

struct Interval {
  double from = 0, to = 0;  // s
  std::size_t evals = 0;
  bench::Percentiles rtt;
  double gateway_mb = 0, node_mb = 0;  // resident, at the interval's end
};

struct Result {
  std::size_t evals = 0;    // answered in the measured window
  double per_second = 0;
  bench::Percentiles rtt;
  std::size_t failures = 0;  // error replies, wrong values
  std::string first_failure;
  std::vector<Interval> intervals;
  std::vector<double> lags;      // ms, per reply (gateway only)
  std::vector<double> lag_read;  // the reply's read time (ms), same order
};

// Polls the ref the logs are committed on (libgit2) from its own thread and
// notes when each new tip was first seen; afterwards tells each reply's
// commit lag. That ref is the REPL's own (refs/editgate/repl/...), or HEAD
// while there is none: an editgate from before it commits the logs there.
class HeadWatch {
 public:
  HeadWatch(const std::filesystem::path& root, int poll_ms, std::chrono::steady_clock::time_point t0);
  ~HeadWatch();
  HeadWatch(const HeadWatch&) = delete;
  HeadWatch& operator=(const HeadWatch&) = delete;

  // Polls on until the ref holds every reply of `all` (its last size per realm
  // in `last_size`) or `wait` passes; then stops polling. False on timeout.
  bool wait_for_all(const std::vector<Realm>& all, const std::vector<std::uint64_t>& last_size,
                    std::chrono::milliseconds wait);
  // Each sample's lag, in the order of `samples`; call after stopping.
  void lags(const std::vector<Realm>& all, const std::vector<Sample>& samples, Result& into) const;
  std::size_t observed() const;
  std::string ref() const;  // the one polled last

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The agents on the gateway: each clones its share of the realms on its own
// connection and keeps one eval in flight on each.
class Load {
 public:
  Load(const Args& a, std::filesystem::path root, unsigned short port, std::string cookie);
  ~Load();
  void wait_node_page();
  double clone_realms();  // ms
  // Runs the load (warm-up + measured, or the soak), a table row per
  // interval; `gateway` for its resident memory and its Node page's.
  Result drive(pid_t gateway, std::chrono::steady_clock::time_point t0);
  const std::vector<Realm>& realms() const { return realms_; }
  std::vector<Sample> samples() const;  // every one, by read time
  std::vector<std::uint64_t> last_sizes() const;

 private:
  struct Agent;
  void agent_loop(Agent& ag, std::chrono::steady_clock::time_point t0);
  const Args& a_;
  std::filesystem::path root_;
  unsigned short port_;
  std::string cookie_;
  std::vector<Realm> realms_;
  std::vector<std::unique_ptr<Agent>> agents_;
  std::atomic<bool> stopping_{false};
};

// The same realms in the state folder's node-page.cjs alone, over its socket pair.
Result drive_floor(const Args& a, const std::filesystem::path& root);

// Resident memory in MB of `pid` (0 when gone), and the gateway's Node page.
double rss_mb(pid_t pid);
pid_t node_page_of(pid_t gateway);

// Percentiles and rate of the samples read within [from, to) s.
void window_stats(const std::vector<Sample>& samples, double from, double to, Result& into);

}  // namespace realms
