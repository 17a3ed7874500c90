#include "repl/admission.hpp"

#include <algorithm>

namespace repl {

namespace {

// How many origins' counts are kept: past it a new origin makes no page
// (its count could not be kept, so neither could its cap).
constexpr std::size_t max_origins = 1000;

// The Node page and its realms: only the gateway starts them, and the page
// door refuses a socket without an Origin before any hello.
bool exempt(const std::string& origin) { return origin.empty(); }

}  // namespace

double Admission::refilled(double tokens, clock::duration since) const {
  return tokens + std::chrono::duration<double>(since) / std::chrono::duration<double>(limits_.every);
}

// A token bucket per origin.
bool Admission::take_token(const std::string& origin, clock::time_point now) {
  const double burst = static_cast<double>(limits_.burst);
  if (buckets_.size() >= max_origins)  // origins whose bucket is full again are forgotten
    std::erase_if(buckets_, [&](const auto& e) { return refilled(e.second.tokens, now - e.second.at) >= burst; });
  if (buckets_.size() >= max_origins && !buckets_.count(origin)) return false;
  auto [it, fresh] = buckets_.try_emplace(origin, Bucket{burst, now});
  Bucket& b = it->second;
  if (!fresh) b.tokens = std::min(burst, refilled(b.tokens, now - b.at));
  b.at = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

std::optional<Error> Admission::admit(const std::string& origin, clock::time_point now) {
  if (exempt(origin)) return std::nullopt;
  const auto made = made_.find(origin);
  if (made == made_.end() ? made_.size() >= max_origins : made->second >= limits_.per_origin)
    return Error::too_many_pages;
  if (!take_token(origin, now)) return Error::rate_limited;
  ++made_[origin];
  return std::nullopt;
}

}  // namespace repl
