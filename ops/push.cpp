// The push op: the branch to `serve --push`'s remote, now. The push runs on
// the pusher's thread (services/pusher.hpp); the outcome comes back to the
// door's executor, so the door waits for nothing but its own reply.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "services/pusher.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace ops {

void op_push(OpCall call) {
  services::Pusher* pusher = call.gw.pusher();
  if (!pusher)
    return call.out->fail({services::Error::no_remote, "this gateway pushes nowhere: start it with `editgate serve --push "
                                             "REMOTE` (a remote's name, a URL or a path)"});
  auto out = call.out;
  auto queued = pusher->push_now([out](const services::PushOutcome& outcome) {
    boost::asio::post(out->executor(), [out, outcome] {
      if (outcome.failure) out->fail(*outcome.failure, outcome.body);
      else out->done(outcome.body);
    });
  });
  if (!queued) call.out->fail(queued.error());
}

}  // namespace ops
