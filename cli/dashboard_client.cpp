#include "cli/dashboard_client.hpp"

#include "cli/remote.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/json.hpp>

namespace cli {

int run_dashboard(const DashboardArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate dashboard: " << root.error().message << '\n';
    return 2;
  }
  auto answer = call_gateway(*root, "POST", "/v1/dashboard-url", "{}");
  if (!answer) {
    err << "editgate dashboard: " << answer.error().message << '\n';
    return 2;
  }
  const boost::json::value* url = answer->body.if_contains("url");
  if (answer->status != 200 || !url || !url->is_string()) {
    err << "editgate dashboard: the gateway refused: " << boost::json::serialize(answer->body) << '\n';
    return 2;
  }
  out << std::string_view(url->get_string()) << '\n';
  return 0;
}

}  // namespace cli
