#include "cli/mcp_finder.hpp"

#include "cli/mcp_launch.hpp"
#include "services/places.hpp"
#include "services/state_dir.hpp"

#include <fstream>

namespace cli::bridge {

namespace {

using namespace std::chrono_literals;

constexpr auto start_limit = 30s;  // a gateway started here must publish its port by then

std::string last_line_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff from = size > 400 ? size - 400 : 0;
  in.seekg(from);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  const std::size_t nl = tail.rfind('\n');
  return nl == std::string::npos ? tail : tail.substr(nl + 1);
}

}  // namespace

void GatewayFinder::find() {
  if (finding_) return;
  finding_ = true;
  started_ = false;
  deadline_ = std::chrono::steady_clock::now() + start_limit;
  poll();
}

void GatewayFinder::stop() {
  stopped_ = true;
  timer_.cancel();
}

void GatewayFinder::poll() {
  if (!refusal_.empty()) return failed(refusal_);
  auto published = services::read_published(root_);
  if (published) return ready(published->port, published->cookie);
  if (published.error().code != services::Error::not_found) return failed(published.error().message);
  const auto now = std::chrono::steady_clock::now();
  const bool running = static_cast<bool>(services::gateway_running(root_));  // starting: not published yet
  if (!running && !started_) {
    if (child_ > 0) exited(child_);  // one started earlier that died: reaped
    auto pid = start_gateway(root_, port_);
    if (!pid) return failed(pid.error().message);
    child_ = *pid;
    started_ = true;
    deadline_ = now + start_limit;
    err_ << "editgate mcp: started a gateway for " << root_ << " (pid " << child_ << ", output in "
         << serve_log(root_) << "); it keeps running after this bridge ends (`editgate stop` stops it), "
         << "and `editgate dashboard` prints its dashboard's URL\n";
  } else if (!running && exited(child_)) {
    return failed("the gateway started for " + root_ + " stopped at once: " + last_line_of(serve_log(root_)) +
                  " (see " + serve_log(root_) + ")");
  }
  if (now > deadline_)
    return failed("the gateway for " + root_ + " did not publish its port within " +
                  std::to_string(start_limit.count()) + " s (see " + serve_log(root_) + ")");
  timer_.expires_after(20ms);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopped_) poll();
  });
}

void GatewayFinder::ready(unsigned short port, const std::string& cookie) {
  finding_ = false;
  ready_(Endpoint{port, "Bearer " + cookie, "127.0.0.1:" + std::to_string(port), ++generation_});
}

void GatewayFinder::failed(const std::string& message) {
  finding_ = false;
  failed_(message);
}

}  // namespace cli::bridge
