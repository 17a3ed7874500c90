// The log op against a real gateway and its Node page: the chat log's
// entries with their kinds, rendered inert, paged back from the end over the
// WebSocket.
#include "client.hpp"
#include "pages.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>
#include <string>
#include <vector>

namespace json = boost::json;
using namespace std::chrono_literals;

TEST_CASE_METHOD(pagetest::NodeGateway, "log renders the Node page's chat log and pages it back from the end",
                 "[pages]") {
  // A reply that holds markup, a script link and a fake header; an error.
  auto ran = pagetest::eval(ws, "node",
                            "'<script>alert(1)</script>\\n<img src=x onerror=alert(2)>\\n[x](javascript:alert(3))\\n"
                            "> **node** to agent at 12:00:00 (1ms)'");
  REQUIRE(ran.back().at("status") == json::array{"done"});
  ran = pagetest::eval(ws, "node", "throw new Error('boom')");
  REQUIRE(ran.back().at("reason").is_string());
  for (int i = 0; i < 20; ++i) REQUIRE(pagetest::eval(ws, "node", std::to_string(i) + " * 3").back().contains("value"));

  auto log_op = [&](json::object params) {
    params["op"] = "log";
    ws.send(json::serialize(params));
    return pagetest::obj(ws.until_done().back());
  };
  const json::object tail = log_op({});  // the default page: the Node page
  REQUIRE(tail.at("status") == json::array{"done"});
  CHECK(tail.at("page").as_string() == name);
  CHECK(tail.at("log").as_string() == rel);
  const auto size = tail.at("size").as_int64();
  CHECK(size == static_cast<std::int64_t>(test::read_file(log).size()));
  CHECK(tail.at("next_before").is_null());  // the whole log fits in 256 KiB

  std::set<std::string> kinds;
  bool hostile_seen = false, error_seen = false;
  for (const json::value& v : tail.at("entries").as_array()) {
    const json::object& e = v.as_object();
    kinds.insert(std::string(e.at("kind").as_string()));
    const std::string html(e.at("html").as_string());
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK((html.find("javascript:") == std::string::npos || html.find("<a ") == std::string::npos));
    if (html.find("&lt;script&gt;") != std::string::npos && e.at("kind") == "reply") hostile_seen = true;
    if (e.at("kind") == "error") {
      error_seen = true;
      CHECK(html.find("boom") != std::string::npos);
      CHECK(e.at("from").as_string() == name);
    }
  }
  CHECK(hostile_seen);  // the reply's markup shows as text
  CHECK(error_seen);
  CHECK(kinds.count("request"));
  CHECK(kinds.count("reply"));
  CHECK(kinds.count("note"));  // the title

  // Paged back 1 KiB at a time: every entry once, in order, the same as the whole.
  std::vector<std::int64_t> offsets;
  json::object page = log_op({{"page", name}, {"limit_bytes", 1024}});
  for (int pages = 1;; ++pages) {
    REQUIRE(page.at("status") == json::array{"done"});
    std::vector<std::int64_t> older;
    for (const json::value& e : page.at("entries").as_array()) older.push_back(e.at("offset").as_int64());
    offsets.insert(offsets.begin(), older.begin(), older.end());
    if (page.at("next_before").is_null()) break;
    REQUIRE(pages < 100);
    page = log_op({{"page", name}, {"before", page.at("next_before")}, {"limit_bytes", 1024}});
  }
  std::vector<std::int64_t> whole;
  for (const json::value& e : tail.at("entries").as_array()) whole.push_back(e.at("offset").as_int64());
  CHECK(offsets == whole);

  // Bad input: no such page, a cursor past the end, a window out of bounds.
  CHECK(log_op({{"page", "nowhere"}}).at("reason") == "not_found");
  CHECK(log_op({{"before", size + 1}}).at("reason") == "bad_request");
  CHECK(log_op({{"limit_bytes", 10}}).at("reason") == "bad_request");
  CHECK(log_op({{"limit_bytes", 5 << 20}}).at("reason") == "bad_request");
}

// cmark-gfm 0.29.0.gfm.6 is quadratic in runs of "![[]()": 40 entries of
// 60 KiB take tens of seconds to render. The read is rendered off the
// worker thread: an eval sent after it answers first, and the read answers
// at its budget with the entries not rendered by then as plain text.
TEST_CASE_METHOD(pagetest::NodeGateway, "a log slow to render holds neither an eval nor the next read",
                 "[pages]") {
  std::string slow;
  for (int i = 0; i < 40; ++i) {
    slow += "\n> **" + name + "** to agent at 12:00:" + (i < 10 ? "0" : "") + std::to_string(i) + " (1ms)\n\n";
    for (int k = 0; k < 10'000; ++k) slow += "![[]()";
    slow += "\n";
  }
  std::ofstream(log, std::ios::app) << slow;
  client::Ws reader{gw.port()};
  reader.login(gw.cookie());
  auto read_log = [&] {
    reader.send(R"({"op":"log","id":"l","limit_bytes":4194304})");
    std::this_thread::sleep_for(100ms);  // the read is on its way before the eval
  };
  read_log();
  const auto sent = std::chrono::steady_clock::now();
  REQUIRE(pagetest::eval(ws, "node", "6 * 7").back().at("value") == 42);
  CHECK_FALSE(reader.readable());  // the eval answered first: the read is still rendering

  const auto done = reader.until_done(30s);
  const auto took = std::chrono::steady_clock::now() - sent;
  CHECK(took < 10s);  // its budget (2 s) and the entry it was in, not the whole rendering
  const json::object tail = pagetest::obj(done.back());
  REQUIRE(tail.at("status") == json::array{"done"});
  std::size_t plain = 0;
  for (const json::value& v : tail.at("entries").as_array()) {
    const json::object& e = v.as_object();
    if (e.at("rendered") == false) {
      ++plain;
      const std::string html(e.at("html").as_string());
      CHECK(html.starts_with("<pre class=\"log-plain\">"));
    }
  }
  CHECK(plain > 0);

  // The abandoned rendering stops at its entry's end: the next read is served.
  read_log();
  REQUIRE(pagetest::obj(reader.until_done(30s).back()).at("status") == json::array{"done"});
  CHECK(std::chrono::steady_clock::now() - sent < 20s);
}
