// The agents' session table: who holds a session, what a resume takes
// back, what a close ends, and its bounds (count and expiry).
#include "services/session_table.hpp"

#include <catch2/catch.hpp>

using services::Error;
using services::SessionTable;

namespace {
int conn_a = 0, conn_b = 1;  // two connections, told apart by address
const SessionTable::Holder a = &conn_a, b = &conn_b;
}  // namespace

TEST_CASE("any connection may use, bind and close a session another holds; one nobody holds is taken", "[sessions][unit]") {
  SessionTable t;
  REQUIRE(t.start("s1", a).has_value());
  CHECK(t.touch("s1", a, "alice")->agent == "alice");
  // Another connection names it: it is used, and stays a's.
  auto other = t.touch("s1", b, "bob");
  REQUIRE(other.has_value());
  CHECK(other->agent == "bob");
  CHECK(other->held);
  REQUIRE(t.bind("s1", b, "tab-1").has_value());
  CHECK(t.page_of("s1") == "tab-1");
  // An id the table does not know names the commits only.
  CHECK_FALSE(t.touch("label", b).has_value());
  // a goes; b named it before, but only a held it: nobody holds it now.
  t.release(a, "s1", std::nullopt);
  CHECK_FALSE(t.list().front().held);
  REQUIRE(t.touch("s1", b).has_value());  // taken by b
  t.release(b, "", std::nullopt);
  CHECK_FALSE(t.list().front().held);
  REQUIRE(t.start("s2", a, "node-1-ab", "node-1-ab").has_value());
  CHECK(t.close("s2").value() == "node-1-ab");  // closed by whoever names it
}

TEST_CASE("resume takes back the page and the context files of a released session", "[sessions][unit]") {
  SessionTable t;
  REQUIRE(t.start("s1", a).has_value());
  REQUIRE(t.bind("s1", a, "tab-1").has_value());
  SessionTable::Context held;
  CHECK(t.resume("s1", b, held).error().code == Error::in_use);  // its connection is still there
  t.release(a, "s1", std::set<std::string>{"src/a.js"});
  SessionTable::Context back;
  auto r = t.resume("s1", b, back);
  REQUIRE(r.has_value());
  CHECK(r->page == "tab-1");
  REQUIRE(back);
  CHECK(back->count("src/a.js") == 1);
  CHECK(t.resume("nope", b, back).error().code == Error::not_found);
}

TEST_CASE("closing a session ends it and hands back the realm its clone made, nothing else", "[sessions][unit]") {
  SessionTable t;
  REQUIRE(t.start("main", a).has_value());
  REQUIRE(t.start("clone", a, "node-1-ab12", "node-1-ab12").has_value());
  CHECK(t.close("main").value().empty());  // the default page is not closed with it
  CHECK(t.close("clone").value() == "node-1-ab12");
  CHECK(t.close("clone").error().code == Error::not_found);
  CHECK(t.size() == 0);
}

TEST_CASE("sessions nobody holds expire with their realms; the count is bounded", "[sessions][unit]") {
  services::SessionLimits limits;
  limits.max_sessions = 3;
  limits.expire_after = std::chrono::seconds(60);
  SessionTable t(limits);
  REQUIRE(t.start("r1", a, "node-1-aa", "node-1-aa").has_value());
  REQUIRE(t.start("r2", a, "node-2-bb", "node-2-bb").has_value());
  REQUIRE(t.start("s", a).has_value());
  // Full, and every session is held: a named error.
  CHECK(t.start("s4", b).error().code == Error::too_many_sessions);
  // A released session without a realm makes room; realm sessions never do.
  t.release(a, "s", std::nullopt);
  REQUIRE(t.start("s4", b).has_value());
  CHECK_FALSE(t.touch("s", b).has_value());
  CHECK(t.start("s5", b).error().code == Error::too_many_sessions);
  CHECK(t.expire().empty());  // held, or released just now
  t.release(a, "", std::nullopt);
  auto realms = t.expire(std::chrono::steady_clock::now() + std::chrono::seconds(61));
  CHECK(realms == std::vector<std::string>{"node-1-aa", "node-2-bb"});
  CHECK(t.size() == 1);  // s4, held by b
}

TEST_CASE("a realm with no request for realm_idle is closed whoever holds it; a running request keeps it", "[sessions][unit]") {
  services::SessionLimits limits;
  limits.realm_idle = std::chrono::seconds(30);
  SessionTable t(limits);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(t.start("realm", a, "node-1-aa", "node-1-aa").has_value());
  REQUIRE(t.start("plain", a).has_value());
  CHECK(t.expire(start + std::chrono::seconds(10)).empty());
  // A request runs past the idle time: not idle while it runs.
  t.begin("realm");
  CHECK(t.expire(start + std::chrono::seconds(60)).empty());
  t.end("realm");  // idle counts from its end
  CHECK(t.expire(std::chrono::steady_clock::now() + std::chrono::seconds(20)).empty());
  const auto realms = t.expire(std::chrono::steady_clock::now() + std::chrono::seconds(31));
  CHECK(realms == std::vector<std::string>{"node-1-aa"});
  // A session without a realm, held: never idle-closed.
  CHECK(t.size() == 1);
  CHECK(t.list().front().id == "plain");
  t.begin("gone");  // ids the table does not know: nothing
  t.end("gone");
}
