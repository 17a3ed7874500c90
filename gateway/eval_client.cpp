#include "gateway/eval_client.hpp"

#include "gateway/state_dir.hpp"
#include "repl/format.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>

namespace editgate {

namespace net = boost::asio;
namespace json = boost::json;

int run_eval(const EvalArgs& args, std::ostream& out, std::ostream& err) {
  auto published = read_published(args.root);
  if (!published) {
    err << "editgate eval: no gateway serves " << args.root << " (" << published.error().message
        << "); start one with `editgate serve`\n";
    return 2;
  }
  json::object body{{"page", args.page}, {"code", args.code}, {"agent", args.agent}};
  if (args.timeout_ms) body["timeout"] = args.timeout_ms;
  if (args.silent) body["silent"] = true;
  const std::string payload = json::serialize(body);
  const std::string request = "POST /v1/eval HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(published->port) +
                              "\r\nAuthorization: Bearer " + published->cookie +
                              "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                              std::to_string(payload.size()) + "\r\n\r\n" + payload;
  std::string response;
  try {
    net::io_context ioc;
    net::ip::tcp::socket socket(ioc);
    socket.connect({net::ip::make_address("127.0.0.1"), published->port});
    net::write(socket, net::buffer(request));
    boost::system::error_code ec;
    net::read(socket, net::dynamic_buffer(response), ec);  // to the end: Connection: close
  } catch (const std::exception& e) {
    err << "editgate eval: cannot reach the gateway on port " << published->port << ": " << e.what() << "\n";
    return 2;
  }
  const std::size_t head_end = response.find("\r\n\r\n");
  boost::system::error_code ec;
  json::value v = head_end == std::string::npos ? json::value() : json::parse(response.substr(head_end + 4), ec);
  if (ec || !v.is_object()) {
    err << "editgate eval: the gateway's answer is not JSON: " << response.substr(0, 200) << "\n";
    return 2;
  }
  const json::object& o = v.get_object();
  if (args.format == "json") {
    out << json::serialize(o) << "\n";
  } else {
    if (const json::value* lines = o.if_contains("out"); lines && lines->is_array())
      for (const auto& m : lines->get_array())
        if (m.is_object() && m.get_object().contains("out"))
          out << m.get_object().at("out").as_string().c_str() << "\n";
    if (const json::value* value = o.if_contains("value")) out << repl::pretty_json(*value) << "\n";
  }
  if (const json::value* e = o.if_contains("error")) {
    const json::value* exception = o.if_contains("exception");
    const json::value* stack = exception && exception->is_object() ? exception->get_object().if_contains("stack") : nullptr;
    if (args.format != "json") err << (stack && stack->is_string() && !stack->get_string().empty() ? stack->get_string() : e->as_string()).c_str() << "\n";
    const json::value* reason = o.if_contains("reason");
    return reason && (*reason == "page_error" || *reason == "timeout" || *reason == "context_destroyed") ? 1 : 2;
  }
  return 0;
}

}  // namespace editgate
