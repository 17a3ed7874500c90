// The undo and events ops over the WebSocket (and undo's POST /v1/undo):
// a real gateway, files and commits read back with the git command line,
// and the built-in Node page's events log paged back from its end.
#include "client.hpp"
#include "pages.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace test;
namespace json = boost::json;

namespace {

json::object obj(const std::string& text) { return json::parse(text).as_object(); }

std::string git1(const fs::path& dir, std::vector<std::string> args) {
  std::string out = git_ok(dir, std::move(args));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A workspace with a committed file, served by a gateway without pages,
// and an agent logged in.
struct Served {
  TempDir dir;
  std::unique_ptr<client::Gateway> gw;
  std::unique_ptr<client::Ws> ws;
  std::string session;
  Served() {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    write_file(dir / "a.txt", "alpha\nbeta\ngamma\n");
    git_ok(dir.path(), {"add", "a.txt"});
    git_ok(dir.path(), {"commit", "-q", "-m", "start"});
    gw = std::make_unique<client::Gateway>(dir.str());
    ws = std::make_unique<client::Ws>(gw->port());
    session = ws->login(gw->cookie());
  }
  std::string head() const { return git1(dir.path(), {"rev-parse", "HEAD"}); }
  // The final reply of one op.
  json::object call(json::object msg) {
    ws->send(json::serialize(msg));
    return obj(ws->until_done().back());
  }
  std::string edit(const std::string& text) {
    json::object done = call({{"op", "edit"}, {"text", text}});
    REQUIRE(done.at("status") == json::array{"done"});
    return std::string(done.at("commit").as_string());
  }
};

}  // namespace

TEST_CASE("undo reverts the newest edit as a commit of its own, then finds nothing left to undo", "[server][ws]") {
  Served s;
  const std::string edited = s.edit(block("a.txt", {"beta"}, {"BETA"}));
  REQUIRE(read_file(s.dir / "a.txt") == "alpha\nBETA\ngamma\n");

  const json::object done = s.call({{"op", "undo"}, {"id", "u1"}, {"agent", "undoer"}});
  REQUIRE(done.at("status") == json::array{"done"});
  CHECK(done.at("undone").as_string() == edited);
  CHECK(done.at("commit").as_string() == s.head());
  CHECK(done.at("session").as_string() == s.session);
  CHECK(std::string(done.at("summary").as_string()).find("a.txt") != std::string::npos);
  CHECK(done.at("paths") == json::array{"a.txt"});
  CHECK(read_file(s.dir / "a.txt") == "alpha\nbeta\ngamma\n");
  // git, asked independently: the undo commit, its author and trailers, its parent the edit.
  CHECK(git1(s.dir.path(), {"log", "-1", "--format=%an|%s|%P"}) ==
        "undoer|undo: " + std::string(done.at("summary").as_string()) + "|" + edited);
  const std::string trailers = git_ok(s.dir.path(), {"log", "-1", "--format=%(trailers)"});
  CHECK(trailers.find("Editgate-Kind: undo\n") != std::string::npos);
  CHECK(trailers.find("Editgate-Undo: " + edited + "\n") != std::string::npos);
  CHECK(trailers.find("Editgate-Session: " + s.session + "\n") != std::string::npos);
  CHECK(git_ok(s.dir.path(), {"show", "HEAD:a.txt"}) == "alpha\nbeta\ngamma\n");
  CHECK(git_ok(s.dir.path(), {"status", "--porcelain"}).empty());

  // Nothing left: not_found, on the WebSocket and over HTTP, and no commit.
  const std::string head = s.head();
  const json::object none = s.call({{"op", "undo"}, {"id", "u2"}});
  CHECK(none.at("reason") == "not_found");
  CHECK(none.at("status") == json::array{"done", "error"});
  const std::map<std::string, std::string> bearer{{"Authorization", "Bearer " + s.gw->cookie()}};
  auto http_none = client::request(s.gw->port(), "POST", "/v1/undo", "{}", bearer);
  CHECK(http_none.status == 404);
  CHECK(obj(http_none.body).at("error") == "not_found");
  CHECK(s.head() == head);

  // POST /v1/undo undoes the next edit; a session of its own, the agent "agent".
  const std::string second = s.edit(block("a.txt", {"gamma"}, {"GAMMA"}));
  auto r = client::request(s.gw->port(), "POST", "/v1/undo", "{}", bearer);
  REQUIRE(r.status == 200);
  const json::object answer = obj(r.body);
  CHECK(answer.at("status") == "ok");
  CHECK(answer.at("undone").as_string() == second);
  CHECK(answer.at("commit").as_string() == s.head());
  CHECK(read_file(s.dir / "a.txt") == "alpha\nbeta\ngamma\n");
  CHECK(git1(s.dir.path(), {"log", "-1", "--format=%an|%(trailers:key=Editgate-Undo,valueonly)"}) == "agent|" + second);
  CHECK(git1(s.dir.path(), {"log", "-1", "--format=%(trailers:key=Editgate-Session,valueonly)"}) ==
        std::string(answer.at("session").as_string()));
  CHECK(git_ok(s.dir.path(), {"status", "--porcelain"}).empty());
}

TEST_CASE("undo is refused, touching nothing, when the file changed since or git is mid-merge", "[server][ws]") {
  Served s;
  const std::string edited = s.edit(block("a.txt", {"beta"}, {"BETA"}));

  SECTION("changed on disk") {
    write_file(s.dir / "a.txt", "alpha\nBETA\ngamma\nmine\n");
    const std::string head = s.head();
    const json::object done = s.call({{"op", "undo"}});
    CHECK(done.at("reason") == "conflict");
    CHECK(std::string(done.at("error").as_string()).find("a.txt has uncommitted changes") != std::string::npos);
    CHECK(read_file(s.dir / "a.txt") == "alpha\nBETA\ngamma\nmine\n");
    CHECK(s.head() == head);
  }
  SECTION("changed in a later commit") {
    write_file(s.dir / "a.txt", "alpha\nBETA\ngamma\nmine\n");
    git_ok(s.dir.path(), {"commit", "-q", "-am", "mine"});
    const std::string head = s.head();
    const json::object done = s.call({{"op", "undo"}});
    CHECK(done.at("reason") == "conflict");
    CHECK(std::string(done.at("error").as_string()).find("a.txt changed in a later commit") != std::string::npos);
    CHECK(read_file(s.dir / "a.txt") == "alpha\nBETA\ngamma\nmine\n");
    CHECK(s.head() == head);
  }
  SECTION("git mid-merge: refused before the file is written back") {
    write_file(s.dir / ".git/MERGE_HEAD", s.head() + "\n");
    const json::object done = s.call({{"op", "undo"}});
    CHECK(done.at("reason") == "conflict");
    CHECK(read_file(s.dir / "a.txt") == "alpha\nBETA\ngamma\n");
    CHECK(s.head() == edited);
    CHECK(git_ok(s.dir.path(), {"status", "--porcelain", "--", "a.txt"}).empty());
  }
}

TEST_CASE_METHOD(pagetest::NodeGateway, "events pages the Node page's events log back from its newest event",
                 "[pages]") {
  // 250 events, one a multi-line text that reads like an event line of its own.
  auto ran = pagetest::eval(ws, "node",
                            "for (let i = 0; i < 249; i++) console.log('event ' + i); "
                            "console.log('last\\n12:00:00 console.log: forged {\"x\":1}'); 1");
  REQUIRE(ran.back().at("value") == 1);

  auto events = [&](json::object params) {
    params["op"] = "events";
    ws.send(json::serialize(params));
    return obj(ws.until_done().back());
  };
  // Paged back 100 at a time: every event once, oldest first within a page.
  std::vector<std::string> texts;
  json::object page = events({});  // the default page: the Node page
  CHECK(page.at("page").as_string() == name);
  CHECK(page.at("events_log").as_string() == "debug/" + name + ".events.log");
  REQUIRE(page.at("events").as_array().size() == 100);
  const json::object& newest = page.at("events").as_array().back().as_object();
  CHECK(newest.at("text") == "last\n12:00:00 console.log: forged {\"x\":1}");
  CHECK(newest.at("source") == "console.log");
  CHECK(newest.at("time").as_string().size() == 8);
  int pages = 0;
  while (true) {
    ++pages;
    std::vector<std::string> older;
    for (const json::value& e : page.at("events").as_array()) older.emplace_back(e.at("text").as_string());
    texts.insert(texts.begin(), older.begin(), older.end());
    if (page.at("next_before").is_null()) break;
    REQUIRE(pages < 10);
    page = events({{"page", name}, {"before", page.at("next_before")}, {"limit", 100}});
    REQUIRE(page.at("status") == json::array{"done"});
  }
  CHECK(pages == 3);
  REQUIRE(texts.size() == 250);
  for (int i = 0; i < 249; ++i) CHECK(texts[static_cast<std::size_t>(i)] == "event " + std::to_string(i));

  // Bounded: a big event comes cut, with its length; the reply says so.
  ran = pagetest::eval(ws, "node", "console.log('y'.repeat(5000)); 2");
  REQUIRE(ran.back().at("value") == 2);
  const json::object big = events({{"limit", 1}});
  const json::object& cut = big.at("events").as_array().at(0).as_object();
  CHECK(cut.at("truncated") == true);
  CHECK(cut.at("text_bytes") == 5000);
  CHECK(cut.at("text").as_string() == std::string(2048, 'y'));

  // No such page, and a cursor past the log's end.
  CHECK(events({{"page", "nowhere"}}).at("reason") == "not_found");
  CHECK(events({{"before", 1 << 30}}).at("reason") == "bad_request");
}
