#include "cli/mcp_token.hpp"

#include "cli/mcp_finder.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/asio/io_context.hpp>

namespace cli {

int run_mcp_token(const McpTokenArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate mcp token: " << root.error().message << '\n';
    return 2;
  }
  boost::asio::io_context ioc;
  std::optional<bridge::Endpoint> found;
  std::string failure;
  bridge::GatewayFinder finder(
      ioc, *root, "", args.port, err, [&](const bridge::Endpoint& e) { found = e; },
      [&](const std::string& message) { failure = message; });
  finder.find();
  ioc.run();
  if (!found) {
    err << "editgate mcp token: " << failure << '\n';
    return 2;
  }
  // The snippet names the workspace's own port; a gateway elsewhere is not at its URL.
  if (auto places = services::places_of(*root); places && found->port != services::default_port(places->id))
    err << "editgate mcp token: the gateway listens on port " << found->port << ", not the workspace's own ("
        << services::default_port(places->id) << "): use http://127.0.0.1:" << found->port << "/mcp\n";
  constexpr std::string_view bearer = "Bearer ";
  out << found->authorization.substr(bearer.size()) << '\n';
  return 0;
}

}  // namespace cli
