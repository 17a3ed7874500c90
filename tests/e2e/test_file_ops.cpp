// The file ops through a real gateway's doors: the WebSocket and their GET
// routes reach one implementation (services/files.hpp, tested in
// tests/services/test_files.cpp), refusals carry their codes and statuses,
// and .gitignore is read from the workspace's repository.
#include "client.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <string>

using namespace test;
namespace json = boost::json;

TEST_CASE("file-read, file-list and file-search answer alike on the WebSocket and their GET routes", "[server][ws]") {
  TempDir dir;
  git_ok(dir.path(), {"init", "-q", "-b", "main"});
  write_file(dir / ".gitignore", "node_modules/\n");
  write_file(dir / "src/app.js", "const a = 1;\nconst b = 2;\n");
  write_file(dir / "node_modules/lib/index.js", "const b = 'vendored';\n");
  git_ok(dir.path(), {"add", "."});
  git_ok(dir.path(), {"commit", "-q", "-m", "start"});
  client::Gateway gw(dir.str());
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  auto call = [&](json::object msg) {
    ws.send(json::serialize(msg));
    return json::parse(ws.until_done().back()).as_object();
  };
  const std::map<std::string, std::string> bearer{{"Authorization", "Bearer " + gw.cookie()}};

  json::object read = call({{"op", "file-read"}, {"path", "src/app.js"}, {"offset", 2}});
  CHECK(read.at("status") == json::array{"done"});
  CHECK(read.at("text") == "     2→const b = 2;\n");
  CHECK(read.at("total_lines") == 2);
  client::Response http = client::request(gw.port(), "GET", "/v1/files/read?path=src/app.js&offset=2", "", bearer);
  REQUIRE(http.status == 200);
  CHECK(json::parse(http.body).at("text") == read.at("text"));

  json::object listed = call({{"op", "file-list"}});
  CHECK(listed.at("text") == ".gitignore\nnode_modules/ (ignored)\nsrc/\nsrc/app.js\n");
  json::object found = call({{"op", "file-search"}, {"pattern", "const b"}});
  CHECK(found.at("text") == "src/app.js:2: const b = 2;\n");
  client::Response searched = client::request(gw.port(), "GET", "/v1/files/search?pattern=vendored&path=node_modules", "", bearer);
  REQUIRE(searched.status == 200);
  CHECK(json::parse(searched.body).at("text") == "node_modules/lib/index.js:1: const b = 'vendored';\n");

  json::object refused = call({{"op", "file-read"}, {"path", "../outside.txt"}});
  CHECK(refused.at("reason") == "path_refused");
  CHECK(client::request(gw.port(), "GET", "/v1/files/read?path=.git/config", "", bearer).status == 403);
  CHECK(client::request(gw.port(), "GET", "/v1/files/read?path=src/app.js").status == 401);
}
