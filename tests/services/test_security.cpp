// The gateway's checks as pure functions: Host, Origin, cookie, query.
#include "ops/dispatcher.hpp"
#include "services/target.hpp"
#include "services/security.hpp"
#include "services/state_dir.hpp"
#include "places.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <optional>

using namespace services;
using namespace ops;

TEST_CASE("Host must name this gateway: loopback or the bound address, with its port", "[security]") {
  Binding b;
  b.port = 8302;
  CHECK(host_allowed("127.0.0.1:8302", b));
  CHECK(host_allowed("localhost:8302", b));
  CHECK(host_allowed("LOCALHOST:8302", b));
  CHECK(host_allowed("[::1]:8302", b));
  CHECK_FALSE(host_allowed("127.0.0.1:8303", b));
  CHECK_FALSE(host_allowed("127.0.0.1", b));
  CHECK_FALSE(host_allowed("evil.example:8302", b));
  CHECK_FALSE(host_allowed("localhost.evil.example:8302", b));
  CHECK_FALSE(host_allowed("", b));
  CHECK_FALSE(host_allowed("127.0.0.1:8302:1", b));
  b.address = "192.168.1.5";
  CHECK(host_allowed("192.168.1.5:8302", b));
}

TEST_CASE("Origin: the gateway's own, or one allowed explicitly", "[security]") {
  Binding b;
  b.port = 8302;
  CHECK(origin_allowed("http://127.0.0.1:8302", b));
  CHECK(origin_allowed("http://localhost:8302", b));
  CHECK_FALSE(origin_allowed("https://localhost:8302", b));
  CHECK_FALSE(origin_allowed("http://localhost:3000", b));
  CHECK_FALSE(origin_allowed("http://evil.example", b));
  CHECK_FALSE(origin_allowed("null", b));
  b.allowed_origins.push_back(*normalize_origin("http://LOCALHOST:3000/"));
  CHECK(origin_allowed("http://localhost:3000", b));
  CHECK_FALSE(normalize_origin("localhost:3000"));
  CHECK_FALSE(normalize_origin("http://a/b"));
}

TEST_CASE("an origin a person types is exactly http(s)://host with an optional :port", "[security]") {
  using services::typed_origin;
  CHECK(typed_origin("https://App.Example.com") == "https://app.example.com");
  CHECK(typed_origin("http://app.example:8443") == "http://app.example:8443");
  CHECK(typed_origin("http://10.0.0.2:3000") == "http://10.0.0.2:3000");
  CHECK(typed_origin("http://[fe80::1]:3000") == "http://[fe80::1]:3000");
  CHECK_FALSE(typed_origin("http://app.example/"));
  CHECK_FALSE(typed_origin("http://app.example/path"));
  CHECK_FALSE(typed_origin("http://app.example?x=1"));
  CHECK_FALSE(typed_origin("http://app.example#x"));
  CHECK_FALSE(typed_origin("http://user@app.example"));
  CHECK_FALSE(typed_origin("ftp://app.example"));
  CHECK_FALSE(typed_origin("app.example"));
  CHECK_FALSE(typed_origin("http://"));
  CHECK_FALSE(typed_origin("http://app.example:0"));
  CHECK_FALSE(typed_origin("http://app.example:99999"));
  CHECK_FALSE(typed_origin("http://.example"));
  CHECK_FALSE(typed_origin("http://a..example"));
  CHECK_FALSE(typed_origin("http://app example"));
  CHECK_FALSE(typed_origin("http://[zz::1]"));
  CHECK_FALSE(typed_origin(" http://app.example"));
}

TEST_CASE("cookies compare in constant time and bearer tokens parse", "[security]") {
  CHECK(constant_time_equal("abc", "abc"));
  CHECK_FALSE(constant_time_equal("abd", "abc"));
  CHECK_FALSE(constant_time_equal("ab", "abc"));
  CHECK_FALSE(constant_time_equal("abcd", "abc"));
  CHECK_FALSE(constant_time_equal("", "abc"));
  CHECK(bearer_token("Bearer xyz") == std::optional<std::string_view>("xyz"));
  CHECK(bearer_token("bearer  xyz ") == std::optional<std::string_view>("xyz"));
  CHECK_FALSE(bearer_token("Basic xyz"));
  CHECK_FALSE(bearer_token("Bearer "));
  CHECK(random_hex(32).size() == 32);
  CHECK(random_hex(32) != random_hex(32));
}

TEST_CASE("the auth message", "[security]") {
  const std::string cookie(32, 'a');
  CHECK(check_auth(R"({"type":"auth","cookie":")" + cookie + R"("})", cookie).has_value());
  CHECK(check_auth(R"({"type":"auth","cookie":"b"})", cookie).error().code == Error::unauthorized);
  CHECK(check_auth(R"({"type":"auth"})", cookie).error().code == Error::unauthorized);
  CHECK(check_auth(R"({"op":"describe"})", cookie).error().code == Error::unauthorized);
  CHECK(check_auth("nope", cookie).error().code == Error::bad_json);
}

TEST_CASE("the state folder: one gateway per workspace, a cookie kept private", "[security]") {
  test::TempDir dir;
  const services::Places places = test::places(dir.path());
  // Outside the workspace, per user.
  CHECK(places.state.rfind(dir.str(), 0) != 0);
  std::string cookie;
  {
    auto first = StateDir::open(places);
    REQUIRE(first.has_value());
    REQUIRE(first->publish(4242, "http://127.0.0.1:4242/", R"({"port":4242})").has_value());
    CHECK(test::read_file(places.state + "/server.json") == "{\"port\":4242}\n");
    CHECK(test::read_file(places.state + "/root") == places.root + "\n");
    struct stat st {};
    REQUIRE(::stat(places.state.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    cookie = first->cookie();
    auto second = StateDir::open(places);
    REQUIRE_FALSE(second.has_value());
    CHECK(second.error().code == Error::in_use);
    CHECK(second.error().message.find("http://127.0.0.1:4242/") != std::string::npos);
    auto published = read_published(dir.str());
    REQUIRE(published.has_value());
    CHECK(published->port == 4242);
    CHECK(published->cookie == cookie);
  }
  // Released with the first; the port and server files went with it.
  CHECK(!test::fs::exists(places.state + "/port"));
  CHECK(!test::fs::exists(places.state + "/server.json"));
  {
    auto again = StateDir::open(places);
    REQUIRE(again.has_value());
    CHECK(again->cookie() == cookie);
  }
  // A cookie others could read may have leaked: it is replaced.
  test::fs::permissions(places.state + "/cookie", test::fs::perms::others_read, test::fs::perm_options::add);
  auto third = StateDir::open(places);
  REQUIRE(third.has_value());
  CHECK(third->cookie() != cookie);
}

TEST_CASE("state folders of workspaces that are gone are removed; a held or a live one is kept", "[security]") {
  std::optional<test::TempDir> gone{std::in_place}, held{std::in_place};
  test::TempDir live;
  const services::Places gone_places = test::places(gone->path()), held_places = test::places(held->path()),
                        live_places = test::places(live.path());
  REQUIRE(StateDir::open(gone_places).has_value());
  auto holder = StateDir::open(held_places);
  REQUIRE(holder.has_value());
  gone.reset();
  held.reset();
  auto opened = StateDir::open(live_places);
  REQUIRE(opened.has_value());
  CHECK_FALSE(test::fs::exists(gone_places.state));
  CHECK(test::fs::exists(held_places.state));
  CHECK(test::fs::exists(live_places.state + "/cookie"));
}

TEST_CASE("a symlink or a file where the state folder goes is refused, never followed", "[security]") {
  test::TempDir dir, outside;
  const services::Places places = test::places(dir.path());
  test::fs::create_directories(test::fs::path(places.state).parent_path());
  test::fs::create_directory_symlink(outside.path(), places.state);
  auto opened = StateDir::open(places);
  test::fs::remove(places.state);
  REQUIRE_FALSE(opened.has_value());
  CHECK(opened.error().code == Error::io);
  CHECK_THAT(opened.error().message, Catch::Contains("is not a folder"));
  CHECK(test::count_entries(outside.path()) == 0);
}

TEST_CASE("a URL's origin is http or https with a host, user info left out - other URLs have none", "[security]") {
  using services::url_origin;
  CHECK(url_origin("http://127.0.0.1:5173/app?x=1#y") == std::optional<std::string>("http://127.0.0.1:5173"));
  CHECK(url_origin("HTTPS://Example.com") == std::optional<std::string>("https://Example.com"));
  CHECK(url_origin("http://user:pw@localhost:8080/") == std::optional<std::string>("http://localhost:8080"));
  CHECK(url_origin("http://[::1]:9/") == std::optional<std::string>("http://[::1]:9"));
  CHECK(!url_origin("file:///etc/passwd"));
  CHECK(!url_origin("javascript:alert(1)"));
  CHECK(!url_origin("data:text/html,hi"));
  CHECK(!url_origin("http:///path"));
  CHECK(!url_origin("http://a b/"));
  CHECK(!url_origin("http://"));
}
