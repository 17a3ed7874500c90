// The answers a page owes the agents: to an interrupt, complete, lookup,
// bindings or clear, each by the number its request carried ("job"). Each
// callback is called once: with the page's answer (take), with `otherwise`
// once its time is up, or with why when the page goes away (fail_all).
// Each page has one, on the REPL's executor.
#pragma once

#include "repl/error.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace repl {

class PendingAnswers {
 public:
  using Done = std::function<void(Answer)>;

  void await(const boost::asio::any_io_executor& ex, std::uint64_t req, Done done, Answer otherwise,
             std::chrono::milliseconds within);
  // The callback waiting for the answer to request `job` (a page message's
  // "job"), taken out; empty when nothing waits for it (answered already,
  // timed out, or no number).
  Done take(std::optional<std::uint64_t> job);
  // Every callback waiting hears `answer`.
  void fail_all(const Answer& answer);
  bool empty() const { return waiting_->empty(); }

 private:
  using Waiting = std::map<std::uint64_t, Done>;
  // Shared with the timers, which find it gone when the page is.
  std::shared_ptr<Waiting> waiting_ = std::make_shared<Waiting>();
};

}  // namespace repl
