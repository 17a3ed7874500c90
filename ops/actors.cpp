// The ops of the pages as the gateway's concurrent things, which the
// protocol calls actors: actors, inspect, kill. A page is an actor: its name
// the pid, its kind the class. The REPL answers on the worker thread.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

// A REPL call on the worker thread; its answer, or its failure, as the reply.
template <class Work>
void on_repl(OpCall& call, Work work) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  call.gw.worker().run(call.out->executor(), [repl, work = std::move(work)] { return work(*repl); },
                       [out = call.out](repl::Result<json::object> answer) {
                         if (!answer) return out->fail(from_repl(answer.error()));
                         out->done(std::move(*answer));
                       });
}

std::string actor_of(const OpCall& call) { return std::string(call.params.at("actor").get_string()); }

}  // namespace

void op_actors(OpCall call) {
  if (!call.gw.repl()) return call.out->done({{"actors", json::array{}}});
  on_repl(call, [](repl::Repl& r) -> repl::Result<json::object> { return json::object{{"actors", r.actors()}}; });
}

void op_inspect(OpCall call) {
  on_repl(call, [actor = actor_of(call)](repl::Repl& r) { return r.inspect(actor); });
}

void op_kill(OpCall call) {
  on_repl(call, [actor = actor_of(call)](repl::Repl& r) { return r.kill(actor); });
}

}  // namespace ops
