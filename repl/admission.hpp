// Which new page instances one gateway run admits, per origin: a token
// bucket (a burst, then one per interval) and a cap for the run. The
// REPL's page registry asks it before it makes a page; a page coming back
// to its instance with its secret is not asked. The built-in Node page
// (origin "", which no page door socket has) is exempt: only the gateway starts it.
#pragma once

#include "repl/error.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace repl {

class Admission {
 public:
  using clock = std::chrono::steady_clock;
  struct Limits {
    std::size_t burst = 10;                     // Options::new_page_burst
    std::chrono::milliseconds every{2'000};     // Options::new_page_every
    std::size_t per_origin = 64;                // Options::max_pages_per_origin
  };
  explicit Admission(Limits limits) : limits_(limits) {}

  // nullopt: a new instance of `origin` is admitted, and counted; else why
  // not: too_many_pages past its cap for the run (or when no more origins
  // can be counted), rate_limited past its bucket.
  std::optional<Error> admit(const std::string& origin, clock::time_point now = clock::now());

 private:
  bool take_token(const std::string& origin, clock::time_point now);
  double refilled(double tokens, clock::duration since) const;

  struct Bucket {
    double tokens = 0;
    clock::time_point at;
  };
  Limits limits_;
  std::map<std::string, Bucket> buckets_;    // by origin
  std::map<std::string, std::size_t> made_;  // new instances in this run, by origin
};

}  // namespace repl
