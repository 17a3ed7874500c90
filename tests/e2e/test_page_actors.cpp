// The pages as the protocol's actors (actors, inspect, kill) and an eval
// interrupted by its request id, on a real gateway with its Node page and a
// scripted tab on the page door.
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

// The actors' entry of `pid`; an empty object while it is not listed.
json::object actor(client::Ws& ws, const std::string& pid) {
  for (const json::value& a : call(ws, {{"op", "actors"}, {"id", "a"}}).at("actors").as_array())
    if (a.as_object().at("pid").as_string() == pid) return a.as_object();
  return {};
}

}  // namespace

TEST_CASE_METHOD(NodeGateway, "a tab is an actor: listed with its URL, inspected, killed with a note in its log, back again",
                 "[pages][actors]") {
  FakePage tab(gw.port());
  tab.welcome();
  const json::object listed = actor(ws, tab.name);
  REQUIRE(!listed.empty());
  CHECK(listed.at("class") == "browser");
  CHECK(listed.at("module") == "http://localhost:9999/fake.html");
  CHECK(listed.at("spawned_at").as_int64() > 1'700'000'000);
  CHECK(actor(ws, name).at("module").as_string() == rel);  // the Node page: its log

  const json::object inspected = call(ws, {{"op", "inspect"}, {"id", "i"}, {"actor", tab.name}});
  CHECK(inspected.at("status") == json::array{"done"});
  CHECK(inspected.at("state").as_object().at("kind") == "browser");
  CHECK(inspected.at("state").as_object().at("queued") == 0);

  const json::object killed = call(ws, {{"op", "kill"}, {"id", "k"}, {"actor", tab.name}});
  CHECK(killed.at("status") == json::array{"done"});
  CHECK(killed.at("value") == "ok");
  // The gateway drops the tab's socket, and says so in its log.
  for (int i = 0; i < 5; ++i)
    if (!tab.ws.read(5s)) break;
  wait_file(dir / tab.log, [](const std::string& t) { return t.find("stopped by an agent's kill") != std::string::npos; });
  for (int i = 0; i < 200 && messages(dir.path()).find("kill: " + tab.name) == std::string::npos; ++i)
    std::this_thread::sleep_for(25ms);
  CHECK(messages(dir.path()).find("kill: " + tab.name + " stopped by an agent") != std::string::npos);
  for (int i = 0; i < 100 && !actor(ws, tab.name).empty(); ++i) std::this_thread::sleep_for(50ms);
  CHECK(actor(ws, tab.name).empty());
  CHECK(call(ws, {{"op", "kill"}, {"id", "k2"}, {"actor", tab.name}}).at("reason") == "not_found");

  // Its adapter connects again, to the same instance and log.
  FakePage again(gw.port(), tab.id, tab.secret);
  again.welcome();
  CHECK(again.name == tab.name);
  CHECK(!actor(ws, tab.name).empty());
}

TEST_CASE_METHOD(NodeGateway, "interrupt-id names the eval of its own connection, and inspect shows the job it runs",
                 "[pages][actors]") {
  ws.send(R"x({"op":"eval","id":"mine","code":"console.log('go'); await new Promise(r => setTimeout(r, 30000))"})x");
  REQUIRE(obj(*ws.read(10s)).at("id") == "mine");  // its output: it runs

  const json::object state = call(ws, {{"op", "inspect"}, {"id", "i"}, {"actor", name}}).at("state").as_object();
  CHECK(state.at("state") == "executing");
  const json::object& job = state.at("job").as_object();
  CHECK(std::string(job.at("code").as_string()).rfind("console.log('go')", 0) == 0);
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
