// The ops that ask a page about a symbol without running anything of it:
// info and docs. They are not jobs: nothing is written to the page's log
// or committed, as an answer about the page changes nothing in it.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

// `what` ("info" or "docs") of the symbol, from the page named (the
// built-in Node page when none is, as for eval), under the op's own key.
void lookup(OpCall call, std::string_view what) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  std::string symbol(call.params.at("symbol").get_string());
  // The reply names the symbol asked about, whatever the page said.
  auto done = [final = final_from_repl(call.out), key = std::string(what), symbol](repl::Answer a) {
    if (json::value* info = a.body.if_contains("info"); info && info->is_object()) {
      json::object answer = std::move(info->get_object());
      answer["symbol"] = symbol;
      if (!answer.contains("found")) answer["found"] = false;
      a.body.erase("info");
      a.body[key] = std::move(answer);
    }
    final(std::move(a));
  };
  call.gw.worker().post([repl, page = page_of(call),
                         what = std::string(what), symbol = std::move(symbol), done = std::move(done)]() mutable {
    repl->lookup(page, what, std::move(symbol), std::move(done));
  });
}

}  // namespace

void op_info(OpCall call) { lookup(std::move(call), "info"); }
void op_docs(OpCall call) { lookup(std::move(call), "docs"); }

}  // namespace ops
