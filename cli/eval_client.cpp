#include "cli/eval_client.hpp"

#include "cli/remote.hpp"
#include "services/error.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"
#include "repl/format.hpp"

#include <boost/json.hpp>

namespace cli {

namespace json = boost::json;

int run_eval(const EvalArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate eval: " << root.error().message << '\n';
    return 2;
  }
  json::object body{{"page", args.page}, {"code", args.code}, {"agent", args.agent}};
  if (args.timeout_ms) body["timeout"] = args.timeout_ms;
  if (args.silent) body["silent"] = true;
  auto answer = call_gateway(*root, "POST", "/v1/eval", json::serialize(body));
  if (!answer) {
    err << "editgate eval: " << answer.error().message << '\n';
    return 2;
  }
  const json::object& o = answer->body;
  if (args.format == "json") {
    out << json::serialize(o) << "\n";
  } else {
    // Each write as the page wrote it, with its line end; the value starts a line of its own.
    std::string printed;
    if (const json::value* lines = o.if_contains("out"); lines && lines->is_array())
      for (const auto& m : lines->get_array())
        if (m.is_object() && m.get_object().contains("out") && m.get_object().at("out").is_string())
          printed += m.get_object().at("out").get_string();
    if (!printed.empty() && printed.back() != '\n') printed += '\n';
    out << printed;
    if (const json::value* value = o.if_contains("value")) out << repl::pretty_json(*value) << "\n";
  }
  if (const json::value* e = o.if_contains("error"); e && e->is_string()) {
    // The gateway's HTTP errors: "error" the code, "message" why.
    const std::string code(e->get_string());
    const json::value* m = o.if_contains("message");
    const std::string message = m && m->is_string() ? std::string(m->get_string()) : "";
    // What the page did (threw, ran past its job's timeout, went away) is
    // the eval's result; anything else, the gateway's own request_timeout
    // among them, is the gateway refusing the request.
    using services::Error;
    const std::optional<Error> named = services::error_named(code);
    const bool ran = named == Error::page_error || named == Error::page_timeout || named == Error::context_destroyed;
    if (args.format != "json") {
      const json::value* exception = o.if_contains("exception");
      const json::value* stack = exception && exception->is_object() ? exception->get_object().if_contains("stack") : nullptr;
      if (ran && stack && stack->is_string() && !stack->get_string().empty())
        err << stack->get_string().c_str() << '\n';
      else if (code == "page_error")  // the exception's own "Name: message"
        err << message << '\n';
      else
        err << (ran ? "" : "editgate eval: ") << code << (message.empty() ? "" : ": " + message) << '\n';
    }
    return ran ? 1 : 2;
  }
  return 0;
}

}  // namespace cli
