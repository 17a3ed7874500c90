// The legacy message format is an adapter onto the op table: its types
// become ops by name, its parameters the ops', and the replies take its shape.
#include "ops/legacy.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <vector>

namespace json = boost::json;
using services::Error;

TEST_CASE("a legacy message is one with a type and no op", "[legacy][unit]") {
  CHECK(ops::is_legacy(json::parse(R"({"type":"eval","expression":"1"})").get_object()));
  CHECK_FALSE(ops::is_legacy(json::parse(R"({"op":"eval","type":"eval","code":"1"})").get_object()));
  CHECK_FALSE(ops::is_legacy(json::parse(R"({"op":"eval","code":"1"})").get_object()));
}

TEST_CASE("legacy types become the table's ops, with their renamed parameters", "[legacy][unit]") {
  auto eval = ops::from_legacy(json::parse(R"({"type":"eval","expression":"1 + 2","id":"a"})").get_object());
  REQUIRE(eval);
  CHECK(*eval == json::parse(R"({"op":"eval","code":"1 + 2","id":"a"})").get_object());
  auto kill = ops::from_legacy(json::parse(R"({"type":"kill","pid":"node-1"})").get_object());
  REQUIRE(kill);
  CHECK(*kill == json::parse(R"({"op":"kill","actor":"node-1"})").get_object());
  auto load = ops::from_legacy(json::parse(R"({"type":"load","path":"a.js"})").get_object());
  REQUIRE(load);
  CHECK(*load == json::parse(R"({"op":"load-file","path":"a.js"})").get_object());
  for (const char* same : {"clear", "bindings", "actors", "modules", "unload"}) {
    auto m = ops::from_legacy(json::object{{"type", same}});
    REQUIRE(m);
    CHECK(m->at("op") == same);
  }
  // A parameter under both names stays as sent: the op's name wins, and
  // the other is named unknown by the op's check.
  auto both = ops::from_legacy(json::parse(R"({"type":"eval","expression":"1","code":"2"})").get_object());
  REQUIRE(both);
  CHECK(both->at("code") == "2");
  CHECK(both->at("expression") == "1");
}

TEST_CASE("a legacy type that is none, and the auth message, are refused by name", "[legacy][unit]") {
  auto odd = ops::from_legacy(json::parse(R"({"type":"describe"})").get_object());
  REQUIRE_FALSE(odd);
  CHECK(odd.error().code == Error::unknown_op);
  CHECK_THAT(odd.error().message, Catch::Contains("eval, clear, bindings, load, actors, modules, kill, unload"));
  auto auth = ops::from_legacy(json::parse(R"({"type":"auth","cookie":"x"})").get_object());
  REQUIRE_FALSE(auth);
  CHECK(auth.error().code == Error::bad_request);
  auto number = ops::from_legacy(json::parse(R"({"type":7})").get_object());
  REQUIRE_FALSE(number);
  CHECK(number.error().code == Error::bad_request);
}

namespace {

struct Sent {
  std::vector<json::object> messages;
  int finished = 0;
};

std::shared_ptr<services::Replies> replies_into(boost::asio::io_context& io, Sent& sent) {
  return ops::legacy_replies(
      io.get_executor(), [&sent](json::object m) { sent.messages.push_back(std::move(m)); }, [&sent] { ++sent.finished; });
}

}  // namespace

TEST_CASE("legacy replies: a result, its printing gathered into output", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  out->part({{"out", "Hello\n"}, {"source", "console.log"}});
  out->part({{"out", "again\n"}, {"source", "console.log"}});
  out->done({{"value", 3}, {"page", "node-1"}});
  REQUIRE(sent.messages.size() == 1);
  CHECK(sent.messages[0] ==
        json::parse(R"({"type":"result","value":3,"page":"node-1","output":"Hello\nagain\n"})").get_object());
  CHECK(sent.finished == 1);
}

TEST_CASE("legacy replies: the op's own output is kept; no status, ever", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  out->part({{"out", "x\n"}});
  out->done({{"value", 1}, {"output", "x\n"}, {"status", json::array{"interrupted"}}});
  REQUIRE(sent.messages.size() == 1);
  CHECK(sent.messages[0] == json::parse(R"({"type":"result","value":1,"output":"x\n"})").get_object());
}

TEST_CASE("legacy replies: an error is type error with the message and its code", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  out->fail({Error::unknown_op, "no op \"clear\""}, {});
  REQUIRE(sent.messages.size() == 1);
  CHECK(sent.messages[0] ==
        json::parse(R"({"type":"error","message":"unknown_op: no op \"clear\"","reason":"unknown_op"})").get_object());
  CHECK(sent.finished == 1);
}

TEST_CASE("legacy replies: a page's exception keeps its own message and the output", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  out->part({{"out", "before\n"}});
  out->fail({Error::page_error, "TypeError: x is null"}, {{"page", "node-1"}});
  REQUIRE(sent.messages.size() == 1);
  const json::object& m = sent.messages[0];
  CHECK(m.at("type") == "error");
  CHECK(m.at("message") == "TypeError: x is null");
  CHECK(m.at("output") == "before\n");
  CHECK_FALSE(m.contains("status"));
  CHECK_FALSE(m.contains("error"));
}

TEST_CASE("legacy replies: need-input is passed on, other parts are not", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  out->part({{"status", json::array{"need-input"}}, {"prompt", "Name: "}});
  out->part({{"block", json::object{{"status", "applied"}}}});
  REQUIRE(sent.messages.size() == 1);
  CHECK(sent.messages[0] == json::parse(R"({"type":"need-input","prompt":"Name: "})").get_object());
  CHECK(sent.finished == 0);
}

TEST_CASE("legacy replies: the gathered output is bounded", "[legacy][unit]") {
  boost::asio::io_context io;
  Sent sent;
  auto out = replies_into(io, sent);
  const std::string chunk(64 * 1024, 'x');
  for (int i = 0; i < 20; ++i) out->part({{"out", chunk}});
  out->done({{"value", 0}});
  REQUIRE(sent.messages.size() == 1);
  CHECK(sent.messages[0].at("output").get_string().size() == 1u << 20);
}
