// What a model reads of an MCP tool result (mcp/result_text.hpp) and the
// author a client's name gives (mcp/client_name.hpp).
#include "mcp/client_name.hpp"
#include "mcp/result_text.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

namespace json = boost::json;

TEST_CASE("an edit's result reads as its report, with nothing of the JSON beside it", "[mcp]") {
  const json::object o = json::parse(R"({"ok":false,"counts":{"applied":1,"failed":1},"summary":"1 applied, 1 failed",
    "warnings":[],"commit":null,"session":"s1","dry_run":false,
    "text":"a.txt:7: failed (near_match)  block 2\n    a.txt: \"teh\" where the file has \"the\"\n1 applied, 1 failed\n",
    "blocks":[{"index":0,"status":"applied"}]})").as_object();
  CHECK(mcp::result_text(o, mcp::TextStyle::reply) ==
        "a.txt:7: failed (near_match)  block 2\n    a.txt: \"teh\" where the file has \"the\"\n1 applied, 1 failed");
}

TEST_CASE("a failure reads error <code>: <message>, then what else the reply says", "[mcp]") {
  json::object o{{"error", "not_found"}, {"message", "no page is connected"}};
  CHECK(mcp::result_text(o, mcp::TextStyle::reply) == "error not_found: no page is connected");
  o["text"] = "1 applied\n";
  CHECK(mcp::result_text(o, mcp::TextStyle::reply) == "error not_found: no page is connected\n1 applied");
}

TEST_CASE("other replies read as an outline: null and empty left out, lists as items", "[mcp]") {
  const json::value v = json::parse(R"({"pages":[{"page":"node","kind":"node","queue":[],"log":null},
    {"page":"tab 1","tags":["a","b"],"note":"two\nlines"}],"next_before":null,"count":2,"ok":false})");
  CHECK(mcp::outline(v) ==
        "pages:\n"
        "  - page: node\n"
        "    kind: node\n"
        "  - page: tab 1\n"
        "    tags: a, b\n"
        "    note:\n"
        "      two\n"
        "      lines\n"
        "count: 2\n"
        "ok: false\n");
}

TEST_CASE("an eval reads as what it printed, then its value or its error", "[mcp]") {
  json::object o{{"value", json::array{1, 2}}, {"page", "node"}, {"job", 3}, {"output", "hi\nthere"}};
  CHECK(mcp::result_text(o, mcp::TextStyle::eval) == "hi\nthere\n[1,2]\npage: node\njob: 3");
  json::object failed{{"error", "page_error"},
                      {"message", "TypeError: x is not a function"},
                      {"exception", json::object{{"stack", "TypeError: x is not a function\n    at <eval>:1:1"}}},
                      {"page", "node"}};
  CHECK(mcp::result_text(failed, mcp::TextStyle::eval) ==
        "error page_error: TypeError: x is not a function\n    at <eval>:1:1\npage: node");
}

TEST_CASE("a client's name becomes an agent name, or none", "[mcp]") {
  CHECK(mcp::author_from_client("editgate-sdk-test") == "editgate-sdk-test");
  CHECK(mcp::author_from_client("Claude Code") == "Claude-Code");
  CHECK(mcp::author_from_client("@modelcontextprotocol/inspector") == "modelcontextprotocol-inspector");
  CHECK(mcp::author_from_client("..\n\x1b[31mevil\x1b[0m") == "31mevil-0m");
  CHECK(mcp::author_from_client("Ωmega") == "mega");
  CHECK(mcp::author_from_client(" \t/") == "");
  CHECK(mcp::author_from_client(std::string(200, 'x')) == std::string(64, 'x'));
  CHECK(mcp::author_from_client_info(nullptr) == "");
  const json::value info = json::parse(R"({"name": "mcporter", "version": "0.7"})");
  CHECK(mcp::author_from_client_info(&info) == "mcporter");
  const json::value bad = json::parse(R"({"name": 42})");
  CHECK(mcp::author_from_client_info(&bad) == "");
}
