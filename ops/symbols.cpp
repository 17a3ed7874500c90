// The ops that ask a page about a symbol without running anything of it:
// info and docs. They are not jobs: nothing is written to the page's log
// or committed, as an answer about the page changes nothing in it.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

#include <memory>

namespace ops {

namespace json = boost::json;

namespace {

// The first path of `paths` the page finds (each asked in turn, on the
// worker thread), or what it said of the last: `done` gets that answer
// and the path it was about.
void first_found(repl::Repl* repl, std::string page, std::string what, std::vector<std::string> paths, std::size_t i,
                 std::function<void(repl::Answer, std::string)> done) {
  std::string path = paths[i];
  repl->lookup(page, what, path, [=, done = std::move(done)](repl::Answer a) mutable {
    const json::value* info = a.body.if_contains("info");
    const json::value* found = info && info->is_object() ? info->get_object().if_contains("found") : nullptr;
    const bool missed = !a.failure && !(found && found->is_bool() && found->get_bool());
    if (missed && i + 1 < paths.size()) return first_found(repl, page, what, std::move(paths), i + 1, std::move(done));
    done(std::move(a), std::move(paths[i]));
  });
}

// `what` ("info" or "docs") of the first of `paths` the page finds, from
// the page named (the built-in Node page when none is, as for eval), under
// the op's own key, with `named` (what the request named it by) beside.
void lookup(OpCall call, std::string_view what, std::vector<std::string> paths, json::object named) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  // The reply names the symbol asked about, whatever the page said.
  auto done = [final = final_from_repl(call.out), key = std::string(what), named = std::move(named)](repl::Answer a,
                                                                                                   std::string symbol) {
    if (json::value* info = a.body.if_contains("info"); info && info->is_object()) {
      json::object answer = std::move(info->get_object());
      answer["symbol"] = std::move(symbol);
      for (const auto& kv : named) answer[kv.key()] = kv.value();
      if (!answer.contains("found")) answer["found"] = false;
      a.body.erase("info");
      a.body[key] = std::move(answer);
    }
    final(std::move(a));
  };
  call.gw.worker().post([repl, page = page_of(call), what = std::string(what), paths = std::move(paths),
                         done = std::move(done)]() mutable {
    first_found(repl, std::move(page), std::move(what), std::move(paths), 0, std::move(done));
  });
}

std::string param(const OpCall& call, std::string_view name) {
  const json::value* v = call.params.if_contains(name);
  return v ? std::string(v->get_string()) : std::string();
}

}  // namespace

void op_info(OpCall call) {
  std::string symbol = param(call, "symbol");
  lookup(std::move(call), "info", {std::move(symbol)}, {});
}

// The docs op as the WebSocket protocol names it: `class`, and a `selector` of it: its instance method
// (on its prototype) if it has one, else its own (static) property.
// `symbol`, the older name, is any dotted path, and stands in for
// `class` in the table's check (Param::or_else; docs/decisions/ops.md).
void op_docs(OpCall call) {
  const std::string cls = param(call, "class"), selector = param(call, "selector"), symbol = param(call, "symbol");
  if (!cls.empty() && !symbol.empty())
    return call.out->fail({services::Error::bad_request, "docs takes class (and selector), or symbol, not both"});
  if (!symbol.empty() && !selector.empty())
    return call.out->fail({services::Error::bad_request, "selector goes with class: docs class=C selector=m"});
  if (!symbol.empty()) return lookup(std::move(call), "docs", {symbol}, {});
  if (selector.empty()) return lookup(std::move(call), "docs", {cls}, {{"class", cls}});
  lookup(std::move(call), "docs", {cls + ".prototype." + selector, cls + "." + selector},
         {{"class", cls}, {"selector", selector}});
}

}  // namespace ops
