// The bridge's view of JSON-RPC messages (cli/mcp_wire.hpp): the facts that
// become HTTP headers, the Mcp-Name encoding, lines and server-sent events.
#include "cli/mcp_wire.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace json = boost::json;
using namespace cli::bridge;

TEST_CASE("mcp wire: a message's facts: id, method, revision, name, cancelled id", "[mcp]") {
  Facts f = facts_of(json::parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"page_eval",
      "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})"));
  CHECK(f.has_id);
  CHECK(f.id == json::value(7));
  CHECK(f.method == "tools/call");
  CHECK(f.modern_version == "2026-07-28");
  CHECK(f.name == std::optional<std::string>("page_eval"));

  f = facts_of(json::parse(R"({"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"editgate://x"}})"));
  CHECK(f.modern_version.empty());
  CHECK(f.name == std::optional<std::string>("editgate://x"));

  f = facts_of(json::parse(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}})"));
  CHECK_FALSE(f.has_id);
  CHECK(f.cancels == json::value("s1"));
  CHECK_FALSE(f.name);

  f = facts_of(json::parse(R"([1,2])"));
  CHECK_FALSE(f.has_id);
  CHECK(f.method.empty());
}

TEST_CASE("mcp wire: Mcp-Name is plain when it can be, base64 as the spec's table says otherwise", "[mcp]") {
  CHECK(header_value("us-west1") == "us-west1");
  CHECK(header_value("two words") == "two words");
  CHECK(header_value("Hello, \xe4\xb8\x96\xe7\x95\x8c") == "=?base64?SGVsbG8sIOS4lueVjA==?=");
  CHECK(header_value(" padded ") == "=?base64?IHBhZGRlZCA=?=");
  CHECK(header_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?=");
  CHECK(header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

TEST_CASE("mcp wire: one message, one line", "[mcp]") {
  CHECK(as_line(R"({"a":1})") == std::optional<std::string>("{\"a\":1}\n"));
  CHECK(as_line("{\n  \"a\": \"x\\ny\"\n}\n") == std::optional<std::string>("{\"a\":\"x\\ny\"}\n"));
  CHECK_FALSE(as_line("{nope"));
  const std::string e = error_line(nullptr, parse_error, "Parse error");
  CHECK(e == "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n");
  CHECK(is_jsonrpc(json::parse(e)));
  CHECK_FALSE(is_jsonrpc(json::parse(R"({"status":"error","error":"unauthorized"})")));
}

TEST_CASE("mcp wire: server-sent events, however the bytes are cut", "[mcp]") {
  const std::string stream =
      ": keep-alive\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\ndata: {\"b\":\ndata: 2}\n\nid: 3\rdata:x\r\r";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    SseReader r;
    std::vector<std::string> got;
    auto on = [&](std::string d) { got.push_back(std::move(d)); };
    REQUIRE(r.feed(std::string_view(stream).substr(0, cut), on));
    REQUIRE(r.feed(std::string_view(stream).substr(cut), on));
    CHECK(got == std::vector<std::string>{"{\"a\":1}", "{\"b\":\n2}", "x"});
  }
}

TEST_CASE("mcp wire: an event over the bound is refused", "[mcp]") {
  SseReader r;
  const std::string big(1 << 20, 'x');
  bool ok = true;
  for (std::size_t i = 0; ok && i < 20; ++i) ok = r.feed(i == 0 ? "data: " + big + "\n" : "data: " + big + "\n",
                                                          [](std::string) {});
  CHECK_FALSE(ok);
}
