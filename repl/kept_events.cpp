#include "repl/kept_events.hpp"

#include <utility>

namespace repl {

bool KeptEvents::add(Event e, std::size_t max_events, std::size_t max_bytes) {
  if (events_.size() >= max_events || bytes_ + e.text.size() > max_bytes) {
    ++dropped_;
    return false;
  }
  bytes_ += e.text.size();
  events_.push_back(std::move(e));
  return true;
}

void KeptEvents::join(KeptEvents& other) {
  for (Event& e : other.events_) events_.push_back(std::move(e));
  bytes_ += other.bytes_;
  dropped_ += other.dropped_;
  other.clear();
}

}  // namespace repl
