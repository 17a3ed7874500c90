#include "repl/pending_answers.hpp"

#include <boost/asio/steady_timer.hpp>

namespace repl {

void PendingAnswers::await(const boost::asio::any_io_executor& ex, std::uint64_t req, Done done, Answer otherwise,
                           std::chrono::milliseconds within) {
  (*waiting_)[req] = std::move(done);
  auto timer = std::make_shared<boost::asio::steady_timer>(ex, within);
  timer->async_wait([weak = std::weak_ptr<Waiting>(waiting_), req, timer,
                     otherwise = std::move(otherwise)](boost::system::error_code) mutable {
    auto waiting = weak.lock();
    if (!waiting) return;
    auto w = waiting->find(req);
    if (w == waiting->end()) return;
    auto answer = std::move(w->second);
    waiting->erase(w);
    answer(std::move(otherwise));
  });
}

PendingAnswers::Done PendingAnswers::take(std::optional<std::uint64_t> job) {
  if (!job) return {};
  auto w = waiting_->find(*job);
  if (w == waiting_->end()) return {};
  auto answer = std::move(w->second);
  waiting_->erase(w);
  return answer;
}

void PendingAnswers::fail_all(const Answer& answer) {
  for (auto& [req, done] : *waiting_) done(answer);
  waiting_->clear();
}

}  // namespace repl
