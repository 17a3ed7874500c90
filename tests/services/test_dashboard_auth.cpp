// The dashboard's sign-in and the origins the person decides on, without a
// socket: tokens are single-use, sessions and pending origins are bounded.
#include "services/dashboard_auth.hpp"
#include "services/origin_approvals.hpp"

#include <catch2/catch.hpp>

using services::DashboardAuth;
using services::OriginApprovals;
using services::Grade;
using V = OriginApprovals::Verdict;

TEST_CASE("a dashboard token signs in once, with its grade", "[unit][dashboard]") {
  DashboardAuth auth;
  const std::string token = auth.mint_token(Grade::person);
  CHECK(token.size() == 32);
  auto session = auth.redeem(token);
  REQUIRE(session);
  CHECK(auth.signed_in(*session) == Grade::person);
  CHECK_FALSE(auth.redeem(token));          // spent
  CHECK_FALSE(auth.redeem(""));
  CHECK_FALSE(auth.redeem(token.substr(0, 31)));
  CHECK_FALSE(auth.signed_in(token));       // a token is no session
  CHECK_FALSE(auth.signed_in(std::string_view()));
  auto viewer = auth.redeem(auth.mint_token(Grade::viewer));
  REQUIRE(viewer);
  CHECK(auth.signed_in(*viewer) == Grade::viewer);
}

TEST_CASE("old viewers' tokens and sessions give way to new ones; the person's never do", "[unit][dashboard]") {
  DashboardAuth auth;
  // Anyone with the cookie can mint viewer sign-ins: as many as they like
  // never push out the one serve printed, nor the session it became.
  const std::string person_token = auth.mint_token(Grade::person);
  const std::string oldest = auth.mint_token(Grade::viewer);
  for (std::size_t i = 0; i < DashboardAuth::max_tokens; ++i) auth.mint_token(Grade::viewer);
  CHECK_FALSE(auth.redeem(oldest));
  auto person = auth.redeem(person_token);
  REQUIRE(person);
  auto first_viewer = auth.redeem(auth.mint_token(Grade::viewer));
  REQUIRE(first_viewer);
  for (std::size_t i = 0; i < DashboardAuth::max_sessions; ++i) REQUIRE(auth.redeem(auth.mint_token(Grade::viewer)));
  CHECK_FALSE(auth.signed_in(*first_viewer));
  CHECK(auth.signed_in(*person) == Grade::person);
}

TEST_CASE("every value of the dashboard's cookie is found, in every Cookie header", "[unit][dashboard]") {
  using services::cookie_values;
  using Values = std::vector<std::string_view>;
  constexpr std::string_view name = "editgate_dashboard";
  CHECK(cookie_values({"editgate_dashboard=abc"}, name) == Values{"abc"});
  CHECK(cookie_values({"a=1; editgate_dashboard=abc; b=2"}, name) == Values{"abc"});
  // A cookie another loopback origin tossed in comes first (its path is longer).
  CHECK(cookie_values({"editgate_dashboard=tossed; a=1; editgate_dashboard=abc"}, name) == Values{"tossed", "abc"});
  CHECK(cookie_values({"a=1", "editgate_dashboard=x", "editgate_dashboard=y; b=2"}, name) == Values{"x", "y"});
  CHECK(cookie_values({"xeditgate_dashboard=abc"}, name).empty());
  CHECK(cookie_values({"editgate_dashboardx=abc"}, name).empty());
  CHECK(cookie_values({""}, name).empty());
  CHECK(cookie_values({";;"}, name).empty());
  CHECK(cookie_values({}, name).empty());
}

TEST_CASE("any live session among a browser's cookie values signs in, the person's first", "[unit][dashboard]") {
  DashboardAuth auth;
  auto person = auth.redeem(auth.mint_token(Grade::person));
  auto viewer = auth.redeem(auth.mint_token(Grade::viewer));
  REQUIRE(person);
  REQUIRE(viewer);
  using Values = std::vector<std::string_view>;
  CHECK(auth.signed_in(Values{"tossed", *person}) == Grade::person);
  CHECK(auth.signed_in(Values{*person, "tossed"}) == Grade::person);
  CHECK(auth.signed_in(Values{"tossed", *viewer}) == Grade::viewer);
  CHECK(auth.signed_in(Values{*viewer, *person}) == Grade::person);
  CHECK_FALSE(auth.signed_in(Values{"tossed", "0123456789abcdef0123456789abcdef"}));
  CHECK_FALSE(auth.signed_in(Values{}));
}

TEST_CASE("an origin waits, then is allowed or refused by the person", "[unit][dashboard]") {
  OriginApprovals a;
  int changes = 0;
  a.on_change([&] { ++changes; });
  CHECK(a.ask("http://app.example") == V::pending);
  CHECK(a.ask("http://app.example") == V::pending);
  CHECK(changes == 1);  // a retry is no change
  auto s = a.snapshot();
  REQUIRE(s.at("pending").as_array().size() == 1);
  CHECK(s.at("pending").as_array()[0].at("attempts").to_number<int>() == 2);
  a.decide("http://app.example", true);
  CHECK(a.ask("http://app.example") == V::allowed);
  a.decide("http://app.example", false);
  CHECK(a.ask("http://app.example") == V::refused);
  CHECK(changes == 3);
  // One the person types before its page asks is decided all the same.
  a.decide("http://typed.example:8443", true);
  CHECK(a.ask("http://typed.example:8443") == V::allowed);
  CHECK(a.snapshot().at("allowed").as_array().size() == 1);
}

TEST_CASE("a flood of origins fills the pending list and is refused past it", "[unit][dashboard]") {
  OriginApprovals a;
  for (std::size_t i = 0; i < OriginApprovals::max_pending; ++i)
    REQUIRE(a.ask("http://o" + std::to_string(i) + ".example") == V::pending);
  CHECK(a.ask("http://late.example") == V::full);
  CHECK(a.ask("http://o0.example") == V::pending);  // those already there still wait
  a.decide("http://o0.example", true);
  CHECK(a.ask("http://late.example") == V::pending);  // a place was freed
}

TEST_CASE("a site is the last two labels of its host, or the whole host", "[unit][dashboard]") {
  using services::site_of;
  CHECK(site_of("https://a.b.example.com") == "example.com");
  CHECK(site_of("http://x1.evil.test:8080") == "evil.test");
  CHECK(site_of("http://example.com") == "example.com");
  CHECK(site_of("http://sub.example.com.") == "example.com");
  CHECK(site_of("http://localhost:3000") == "localhost");
  CHECK(site_of("http://10.1.2.3:80") == "10.1.2.3");
  CHECK(site_of("http://10.1.2.4") == "10.1.2.4");
  CHECK(site_of("http://[fe80::1]:8000") == "[fe80::1]");
}

TEST_CASE("one site's subdomains hold a few pending places, never the list", "[unit][dashboard]") {
  OriginApprovals a;
  for (std::size_t i = 0; i < OriginApprovals::max_pending_per_site; ++i)
    REQUIRE(a.ask("https://f" + std::to_string(i) + ".flood.example") == V::pending);
  for (int i = 0; i < 20; ++i) CHECK(a.ask("https://g" + std::to_string(i) + ".flood.example") == V::site_full);
  CHECK(a.ask("https://flood.example") == V::site_full);
  CHECK(a.ask("https://f0.flood.example") == V::pending);  // those already there still wait
  CHECK(a.snapshot().at("pending").as_array().size() == OriginApprovals::max_pending_per_site);
  // Another site still gets a place.
  CHECK(a.ask("https://app.mine.test") == V::pending);
  // Decided ones leave the site's share.
  a.decide("https://f0.flood.example", false);
  CHECK(a.ask("https://g0.flood.example") == V::pending);
}
