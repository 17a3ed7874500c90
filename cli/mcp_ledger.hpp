// The bridge's bookkeeping of its calls: every call not ended yet, the
// client's messages counted against their bounds, and each request findable
// by its id (a notifications/cancelled names it). No Beast here.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cli::bridge {

struct Call;  // cli/mcp_bridge.cpp
using CallPtr = std::shared_ptr<Call>;

constexpr std::size_t max_requests = 64;       // requests in flight; past it a named error
constexpr std::size_t max_notifications = 64;  // notifications being posted; past it dropped, said on stderr

class Ledger {
 public:
  enum class Admit { ok, too_many_requests, too_many_notifications };

  // A message from the client, counted against its bound and tracked when
  // under it. `id`: a request's, null for a notification.
  Admit admit(const CallPtr& c, const boost::json::value* id);
  // One of the bridge's own calls: tracked, not counted.
  void track(const CallPtr& c);
  // The request in flight with that id; null when none.
  CallPtr find(const boost::json::value& id) const;
  bool tracks(const CallPtr& c) const { return calls_.count(c) != 0; }
  // Ends a call: false when it had ended already.
  bool release(const CallPtr& c);
  std::vector<CallPtr> open() const;
  bool empty() const { return calls_.empty(); }

 private:
  struct Entry {
    enum { uncounted, request, notification } counted = uncounted;
    std::string id;  // a request's, serialized
  };
  std::map<CallPtr, Entry> calls_;
  std::map<std::string, CallPtr> by_id_;
  std::size_t requests_ = 0, notifications_ = 0;
};

}  // namespace cli::bridge
