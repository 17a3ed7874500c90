#include "cli/mcp_ledger.hpp"

#include <boost/json/serialize.hpp>

namespace cli::bridge {

Ledger::Admit Ledger::admit(const CallPtr& c, const boost::json::value* id) {
  Entry e;
  if (id) {
    if (requests_ >= max_requests) return Admit::too_many_requests;
    ++requests_;
    e.counted = Entry::request;
    e.id = boost::json::serialize(*id);
    by_id_[e.id] = c;
  } else {
    if (notifications_ >= max_notifications) return Admit::too_many_notifications;
    ++notifications_;
    e.counted = Entry::notification;
  }
  calls_[c] = std::move(e);
  return Admit::ok;
}

void Ledger::track(const CallPtr& c) { calls_[c]; }

CallPtr Ledger::find(const boost::json::value& id) const {
  auto it = by_id_.find(boost::json::serialize(id));
  return it == by_id_.end() ? nullptr : it->second;
}

bool Ledger::release(const CallPtr& c) {
  auto it = calls_.find(c);
  if (it == calls_.end()) return false;
  if (it->second.counted == Entry::request) {
    --requests_;
    auto r = by_id_.find(it->second.id);
    if (r != by_id_.end() && r->second == c) by_id_.erase(r);
  } else if (it->second.counted == Entry::notification) {
    --notifications_;
  }
  calls_.erase(it);
  return true;
}

std::vector<CallPtr> Ledger::open() const {
  std::vector<CallPtr> all;
  all.reserve(calls_.size());
  for (const auto& [c, e] : calls_) all.push_back(c);
  return all;
}

}  // namespace cli::bridge
