// The agents' bindings and clear: what evaluations left in a page's
// globals, listed and removed by the page itself (a realm gets a fresh
// context; a browser tab and the Node page delete what they can). The
// answer is awaited as complete's is (Repl::ask).
#include "repl/page_state.hpp"

#include <boost/json.hpp>

namespace repl {

namespace json = boost::json;

void Repl::bindings(const std::string& page, std::function<void(Answer)> done) {
  ask(page, {{"type", "bindings"}}, std::move(done));
}

void Repl::clear(const std::string& page, std::function<void(Answer)> done) {
  ask(page, {{"type", "clear"}}, std::move(done));
}

void Repl::on_bindings(Page& p, const json::object& msg) {
  auto answer = p.answers.take(job_of(msg));
  if (!answer) return;
  json::object out{{"page", p.stem}};
  if (str(msg, "type") == "bindings") {
    const json::value* b = msg.if_contains("bindings");
    out["bindings"] = b && b->is_object() ? *b : json::object{};
    if (const json::value* more = msg.if_contains("more"); more && more->is_number() && more->to_number<double>() > 0)
      out["more"] = *more;
  } else {
    out["value"] = "ok";
    const json::value* kept = msg.if_contains("kept");
    out["kept"] = kept && kept->is_array() ? *kept : json::array{};
  }
  answer({std::move(out)});
}

}  // namespace repl
