// A page's console output as the REPL keeps it for a reply and the events
// log: within a bound (Options::max_events_kept events and
// max_event_bytes_kept bytes of their text), past which events are only
// counted, so a flood of output costs a count, not memory. A running job
// has one; so has each page, for the output between jobs.
#pragma once

#include "repl/format.hpp"

#include <cstddef>
#include <vector>

namespace repl {

class KeptEvents {
 public:
  // Kept when it fits within `max_events` and `max_bytes`; else counted as
  // dropped, and false.
  bool add(Event e, std::size_t max_events, std::size_t max_bytes);
  // Writes the page counted instead of sending, or prompts past their bound.
  void count_dropped(std::size_t n) { dropped_ += n; }
  // What `other` kept and counted joins this (unbounded: it was bounded
  // already), and `other` is empty again.
  void join(KeptEvents& other);
  void clear() { *this = KeptEvents(); }

  const std::vector<Event>& list() const { return events_; }
  std::size_t dropped() const { return dropped_; }
  bool empty() const { return events_.empty(); }

 private:
  std::vector<Event> events_;
  std::size_t bytes_ = 0;  // of the kept events' text
  std::size_t dropped_ = 0;
};

}  // namespace repl
