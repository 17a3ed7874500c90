// The show and runs ops through a real gateway: an edit with an applied and
// a failed block, listed by runs with the failing block's diagnostic and
// shown with its diff; a dry run; a run through POST /v1/edits; commits that
// are not there.
#include "client.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace test;
namespace json = boost::json;

namespace {

json::object obj(const std::string& text) { return json::parse(text).as_object(); }

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
  json::object call(json::object msg) {
    ws->send(json::serialize(msg));
    return obj(ws->until_done().back());
  }
  json::array runs() {
    const json::object r = call({{"op", "runs"}, {"id", "r"}});
    REQUIRE(r.at("status") == json::array{"done"});
    return r.at("runs").as_array();
  }
};

const std::string failing = block("a.txt", {"no such line"}, {"x"});

}  // namespace

TEST_CASE("runs lists an edit's blocks with the failing one's diagnostic, and show gives its diff and blocks",
          "[server][ws][dashboard]") {
  Served s;
  const json::object done = s.call({{"op", "edit"},
                                    {"id", "e1"},
                                    {"agent", "writer"},
                                    {"text", block("a.txt", {"beta"}, {"BETA"}) + failing}});
  REQUIRE(done.at("commit").is_string());
  const std::string commit(done.at("commit").as_string());

  const json::array runs = s.runs();
  REQUIRE(runs.size() == 1);
  const json::object& run = runs[0].as_object();
  CHECK(run.at("agent") == "writer");
  CHECK(run.at("session").as_string() == s.session);
  CHECK(run.at("door") == "WebSocket edit");
  CHECK(run.at("commit").as_string() == commit);
  CHECK(run.at("dry_run") == false);
  CHECK(run.at("ok") == false);
  CHECK(run.at("summary") == "1 applied, 1 failed");
  const json::array& blocks = run.at("blocks").as_array();
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].at("status") == "applied");
  CHECK(blocks[1].at("index") == 1);
  CHECK(blocks[1].at("status") == "failed");
  CHECK(blocks[1].at("path") == "a.txt");
  const std::string diagnostic(blocks[1].at("diagnostic").as_string());
  INFO(diagnostic);
  CHECK(diagnostic.find("no line of the EDIT section") != std::string::npos);

  // show, by a 7-digit prefix: the commit, its diff, and its blocks with the diagnostic from the run.
  const json::object shown = s.call({{"op", "show"}, {"id", "s1"}, {"commit", commit.substr(0, 7)}});
  REQUIRE(shown.at("status") == json::array{"done"});
  CHECK(shown.at("commit").as_string() == commit);
  CHECK(shown.at("kind") == "edit");
  CHECK(shown.at("agent") == "writer");
  CHECK(shown.at("session").as_string() == s.session);
  CHECK(shown.at("author").at("name") == "writer");
  CHECK(shown.at("parents").as_array().size() == 1);
  CHECK(shown.at("cut").is_null());
  CHECK(shown.at("run") == run.at("id"));
  const json::array& files = shown.at("files").as_array();
  REQUIRE(files.size() == 1);
  CHECK(files[0].at("path") == "a.txt");
  CHECK(files[0].at("status") == "modified");
  CHECK(files[0].at("binary") == false);
  const json::array& hunks = files[0].at("hunks").as_array();
  REQUIRE(hunks.size() == 1);
  CHECK(hunks[0].at("header") == "@@ -1,3 +1,3 @@");
  json::array expected;
  expected.push_back(json::object{{"t", " "}, {"old", 1}, {"new", 1}, {"text", "alpha"}});
  expected.push_back(json::object{{"t", "-"}, {"old", 2}, {"new", nullptr}, {"text", "beta"}});
  expected.push_back(json::object{{"t", "+"}, {"old", nullptr}, {"new", 2}, {"text", "BETA"}});
  expected.push_back(json::object{{"t", " "}, {"old", 3}, {"new", 3}, {"text", "gamma"}});
  CHECK(hunks[0].at("lines") == expected);
  const json::array& shown_blocks = shown.at("blocks").as_array();
  REQUIRE(shown_blocks.size() == 2);
  CHECK(shown_blocks[0].at("status") == "applied");
  CHECK(shown_blocks[0].at("path") == "a.txt");
  CHECK(shown_blocks[0].at("line") == 2);
  CHECK(shown_blocks[1].at("status") == "failed");
  CHECK(shown_blocks[1].at("diagnostic").as_string() == diagnostic);

  // A commit made before the gateway remembers runs: blocks none, no run.
  const std::string start = git_ok(s.dir.path(), {"rev-parse", "HEAD~1"}).substr(0, 40);
  const json::object first = s.call({{"op", "show"}, {"id", "s2"}, {"commit", start}});
  REQUIRE(first.at("status") == json::array{"done"});
  CHECK(first.at("kind").is_null());
  CHECK(first.at("run").is_null());
  CHECK(first.at("parents").as_array().empty());
  CHECK(first.at("files").at(0).at("status") == "added");
}

TEST_CASE("runs lists dry runs and runs of every door, newest first, and honours limit", "[server][ws][dashboard]") {
  Served s;
  const json::object dry =
      s.call({{"op", "edit"}, {"id", "d"}, {"dry_run", true}, {"text", block("a.txt", {"beta"}, {"B"}) + failing}});
  REQUIRE(dry.at("commit").is_null());
  const std::map<std::string, std::string> bearer{{"Authorization", "Bearer " + s.gw->cookie()}};
  auto posted = client::request(s.gw->port(), "POST", "/v1/edits", block("a.txt", {"gamma"}, {"GAMMA"}), bearer);
  REQUIRE(posted.status == 200);

  const json::array runs = s.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].at("door") == "POST /v1/edits");
  CHECK(runs[0].at("commit").is_string());
  CHECK(runs[0].at("ok") == true);
  CHECK(runs[1].at("dry_run") == true);
  CHECK(runs[1].at("commit").is_null());
  CHECK(runs[1].at("blocks").at(0).at("status") == "validated");
  CHECK(runs[1].at("blocks").at(1).at("status") == "failed");
  CHECK(runs[0].at("id").as_int64() > runs[1].at("id").as_int64());

  const json::object one = s.call({{"op", "runs"}, {"id", "r1"}, {"limit", 1}});
  REQUIRE(one.at("runs").as_array().size() == 1);
  CHECK(one.at("runs").at(0).at("door") == "POST /v1/edits");
}

TEST_CASE("show names a commit that is not there, not hex or too short", "[server][ws][dashboard]") {
  Served s;
  auto reason = [&](const std::string& commit) {
    const json::object r = s.call({{"op", "show"}, {"id", "x"}, {"commit", commit}});
    CHECK(r.at("status") == json::array{"done", "error"});
    CHECK_FALSE(r.at("error").as_string().empty());
    return std::string(r.at("reason").as_string());
  };
  const std::string head = git_ok(s.dir.path(), {"rev-parse", "HEAD"}).substr(0, 40);
  CHECK(reason(head == std::string(40, '0') ? std::string(40, '1') : std::string(40, '0')) == "not_found");
  CHECK(reason("not-hex!") == "bad_request");
  CHECK(reason(head.substr(0, 6)) == "bad_request");
  CHECK(reason(head + "0") == "bad_request");
}
