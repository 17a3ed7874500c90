#include "repl/job_progress.hpp"

#include <algorithm>

namespace repl {

void JobProgress::accepted(std::uint64_t job, std::size_t blocks) {
  acked_ = std::max(acked_, job);
  open_[job] = Blocks{blocks, 0};
}

void JobProgress::ran(std::uint64_t job, std::size_t done) {
  if (auto it = open_.find(job); it != open_.end()) it->second.done = done;
}

void JobProgress::ran_all(std::uint64_t job) {
  if (auto it = open_.find(job); it != open_.end()) it->second.done = it->second.total;
}

bool JobProgress::replied(std::uint64_t job, const std::string& status) {
  open_.erase(job);
  done_early_[job] = status;
  const std::uint64_t before = completed_;
  while (!done_early_.empty() && (open_.empty() || done_early_.begin()->first < open_.begin()->first)) {
    completed_ = done_early_.begin()->first;
    completed_status_ = done_early_.begin()->second;
    done_early_.erase(done_early_.begin());
  }
  return completed_ != before;
}

std::int64_t JobProgress::percent() const {
  std::size_t total = 0, done = 0;
  for (const auto& [id, b] : open_) {
    total += b.total;
    done += std::min(b.done, b.total);
  }
  return total == 0 ? 100 : static_cast<std::int64_t>(100 * done / total);
}

}  // namespace repl
