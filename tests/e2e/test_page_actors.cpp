// An eval interrupted by its request id, and inspect of the page that runs
// it, on a real gateway with its Node page.
#include "pages.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <thread>

namespace json = boost::json;
using namespace std::chrono_literals;

using namespace pagetest;

namespace {

json::object call(client::Ws& ws, const json::object& msg) {
  ws.send(json::serialize(msg));
  return obj(ws.until_done().back());
}

}  // namespace

TEST_CASE_METHOD(NodeGateway, "interrupt-id names the eval of its own connection, and inspect shows the job it runs",
                 "[pages][actors]") {
  ws.send(R"({"op":"eval","id":"mine","code":"while (true) {}","timeout":30000})");
  std::this_thread::sleep_for(300ms);  // it runs

  const json::object state = call(ws, {{"op", "inspect"}, {"id", "i"}, {"actor", name}}).at("state").as_object();
  CHECK(state.at("state") == "executing");
  const json::object& job = state.at("job").as_object();
  CHECK(job.at("code") == "while (true) {}");
  CHECK(job.at("agent") == "agent");

  // Another connection's request under the same id is another request.
  client::Ws other(gw.port());
  other.login(gw.cookie());
  const json::object mismatch = call(other, {{"op", "interrupt"}, {"id", "x"}, {"interrupt-id", "mine"}});
  CHECK(mismatch.at("status") == json::array{"done", "error", "interrupt-id-mismatch"});
  CHECK(mismatch.at("reason") == "not_found");

  ws.send(R"({"op":"interrupt","id":"stop","interrupt-id":"mine"})");
  auto done = finals(ws, 2);
  CHECK(done["stop"].at("result") == "interrupted");
  CHECK(done["mine"].at("status") == json::array{"done", "error", "interrupted"});
  CHECK(eval(ws, "node", "1 + 1").back().at("value") == 2);
}

TEST_CASE("kill of a tab drops its connection; the tab comes back to the same log", "[pages][actors]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  client::Ws agent(gw.port());
  agent.login(gw.cookie());
  FakePage page(gw.port());
  page.welcome();

  const json::object killed = call(agent, {{"op", "kill"}, {"id", "k"}, {"actor", page.name}});
  CHECK(killed.at("value") == "ok");
  CHECK(killed.at("page") == json::value(page.name));
  // The gateway closes the page's socket: the fake tab reads the end.
  std::optional<std::string> m;
  do m = page.ws.read(10s); while (m);
  // Gone: nothing to stop (once the gateway has seen the socket end).
  json::object again_killed;
  for (int i = 0; i < 500; ++i) {
    again_killed = call(agent, {{"op", "kill"}, {"id", "k2"}, {"actor", page.name}});
    if (again_killed.contains("reason")) break;
    std::this_thread::sleep_for(20ms);
  }
  CHECK(again_killed.at("reason") == "not_found");

  FakePage again(gw.port(), page.id, page.secret);
  again.welcome();
  CHECK(again.name == page.name);
  const std::string text = test::read_file(dir / page.log);
  CHECK(text.find("was stopped by an agent's kill") != std::string::npos);
}
