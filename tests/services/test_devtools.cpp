// The DevTools pipe's bounds, against a stand-in browser
// (tests/services/fake_devtools.py): an answer over the message bound is
// dropped and its screenshot fails by name while the browser goes on; a
// browser that exits before a word is unavailable; a silent one times out;
// the protocol's own errors come by name; stop ends the whole group.
#include "services/devtools.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <csignal>
#include <optional>
#include <string>
#include <thread>

using services::DevTools;
using services::Error;
namespace json = boost::json;

namespace {

const std::string fake = std::string(SOURCE_DIR) + "/tests/services/fake_devtools.py";

// Sends `method` and runs the context until its answer.
services::Result<json::object> ask(boost::asio::io_context& ioc, DevTools& tools, const std::string& method,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  std::optional<services::Result<json::object>> answer;
  tools.send(method, json::object{{"n", 7}}, "", [&](services::Result<json::object> r) { answer = std::move(r); },
             timeout);
  ioc.restart();
  while (!answer && ioc.run_one()) {
  }
  REQUIRE(answer);
  return *answer;
}

}  // namespace

TEST_CASE("devtools pipe: an answer over the bound fails its screenshot by name, and the browser goes on", "[services]") {
  boost::asio::io_context ioc;
  bool ended = false;
  auto tools = std::make_shared<DevTools>(ioc.get_executor(), nullptr, [&] { ended = true; });
  REQUIRE(tools->start({fake, {}, "/dev/null"}));
  auto echo = ask(ioc, *tools, "Echo");
  REQUIRE(echo);
  CHECK(echo->at("echo").at("n") == 7);
  auto shot = ask(ioc, *tools, "Page.captureScreenshot");
  REQUIRE(!shot);
  CHECK(shot.error().code == Error::screenshot_too_large);
  auto after = ask(ioc, *tools, "Echo");
  CHECK(after);
  CHECK(tools->running());
  auto failed = ask(ioc, *tools, "Fail");
  REQUIRE(!failed);
  CHECK(failed.error().code == Error::browser_error);
  CHECK(failed.error().message == "No target with given id");
  auto silent = ask(ioc, *tools, "Silent", std::chrono::milliseconds(100));
  REQUIRE(!silent);
  CHECK(silent.error().code == Error::page_timeout);
  const int pid = tools->pid();
  tools->stop();
  CHECK(!tools->running());
  CHECK(!ended);  // a stop is not a crash
  // The group is gone, its sleeping child with it (once init has reaped it).
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(-pid, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("devtools pipe: a browser that exits before a word is unavailable, and says how it ended", "[services]") {
  boost::asio::io_context ioc;
  bool ended = false;
  auto tools = std::make_shared<DevTools>(ioc.get_executor(), nullptr, [&] { ended = true; });
  REQUIRE(tools->start({fake, {"--exit-at-once"}, "/tmp/editgate-test-browser.log"}));
  auto r = ask(ioc, *tools, "Echo");
  REQUIRE(!r);
  CHECK(r.error().code == Error::browser_unavailable);
  CHECK(r.error().message.find("exited with status 3") != std::string::npos);
  CHECK(r.error().message.find("/tmp/editgate-test-browser.log") != std::string::npos);
  CHECK(ended);
  auto later = ask(ioc, *tools, "Echo");
  REQUIRE(!later);
  CHECK(later.error().code == Error::browser_crashed);
}

TEST_CASE("devtools pipe: a browser that cannot be spawned is unavailable", "[services]") {
  boost::asio::io_context ioc;
  auto tools = std::make_shared<DevTools>(ioc.get_executor(), nullptr, nullptr);
  auto started = tools->start({"/nonexistent/chromium", {}, ""});
  REQUIRE(!started);
  CHECK(started.error().code == Error::browser_unavailable);
}
