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
