// The realms of the built-in Node page: fresh JavaScript contexts in its
// one process, each a page of its own to the REPL (its own name, chat log
// and queue), multiplexed over the Node page's private channel. The
// agents' `clone` opens one for the session it makes; `close` and a
// session's expiry close it. No Beast, no REPL types here.
#pragma once

#include "services/error.hpp"

#include <cstddef>
#include <functional>
#include <string>

namespace services {

// Called on the worker thread only, where the REPL and the Node page live.
class RealmHost {
 public:
  virtual ~RealmHost() = default;
  // A new realm: `done` (worker thread) gets its page's instance id once
  // the REPL has taken the page in; too_many_pages past max_realms, not_found
  // while the Node page is not running.
  virtual void open(std::function<void(Result<std::string>)> done) = 0;
  // Ends the realm whose page has instance id `page`: its context is
  // dropped, its page disconnected (its log stays). Other ids: nothing.
  virtual void close(const std::string& page) = 0;
};

// How many realms one Node page hosts at once: a thousand agents' sessions
// each with a realm of its own (bench/realms_bench.cpp drives 1,000).
inline constexpr std::size_t max_realms = 1024;

}  // namespace services
