#include "cli/stop.hpp"

#include "cli/remote.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace cli {

namespace {

// Polls until no gateway holds the workspace's lock, or `timeout` passes.
bool gone_within(const std::string& root, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto running = services::gateway_running(root);
    if (!running && running.error().code == services::Error::not_found) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int run_stop(const StopArgs& args, std::ostream& out, std::ostream& err) {
  auto root = services::find_workspace(args.root);
  if (!root) {
    err << "editgate stop: " << root.error().message << '\n';
    return 2;
  }
  // Named as `where` names it: absolute, whatever --root said.
  const auto places = services::places_of(*root);
  const std::string shown = places ? places->root : *root;
  auto published = services::read_published(*root);
  if (!published && published.error().code == services::Error::not_found) {
    out << "no gateway serves " << shown << ": nothing to stop\n";
    return 0;
  }
  if (!published) {
    err << "editgate stop: " << published.error().message << '\n';
    return 2;
  }
  auto answer = call_gateway(*root, "POST", "/v1/shutdown",
                             boost::json::serialize(boost::json::object{{"cookie", published->cookie}}));
  // A gateway that stops before its answer arrives is what was asked for.
  if (!answer && answer.error().code != services::Error::not_found) {
    err << "editgate stop: " << answer.error().message << '\n';
    return 2;
  }
  if (answer && answer->status != 200) {
    err << "editgate stop: the gateway refused: " << boost::json::serialize(answer->body) << '\n';
    return 2;
  }
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(args.timeout_s * 1000));
  if (!gone_within(*root, timeout)) {
    err << "editgate stop: the gateway serving " << shown << " (port " << published->port
        << ") is still running after " << args.timeout_s << " s\n";
    return 1;
  }
  out << "stopped the gateway serving " << shown << " (port " << published->port << ")\n";
  return 0;
}

}  // namespace cli
