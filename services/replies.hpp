// Where one request's replies go, as every door and the services that
// answer requests (the event hub's watchers) see it. No transport here.
#pragma once

#include "services/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

namespace services {

// Where one request's replies go: the door's side of it. Every call is made
// on executor(); part() any number of times, then one of done() or fail().
class Replies {
 public:
  virtual ~Replies() = default;
  virtual boost::asio::any_io_executor executor() const = 0;
  // An intermediate message (a block's result, what a page printed).
  virtual void part(boost::json::object body) = 0;
  // The final reply.
  virtual void done(boost::json::object body) = 0;
  // The final reply of a request that failed; `body` holds what the op
  // has to say besides (an edit's summary, an eval's page and job).
  virtual void fail(Failure failure, boost::json::object body = {}) = 0;
};

}  // namespace services
