// The dashboard's sign-in and the origins the person decides on, without a
// socket: tokens are single-use, sessions and pending origins are bounded.
#include "services/dashboard_auth.hpp"
#include "services/origin_approvals.hpp"

#include <catch2/catch.hpp>

using services::DashboardAuth;
using services::OriginApprovals;
using V = OriginApprovals::Verdict;

TEST_CASE("a dashboard token signs in once", "[unit][dashboard]") {
  DashboardAuth auth;
  const std::string token = auth.mint_token();
  CHECK(token.size() == 32);
  auto session = auth.redeem(token);
  REQUIRE(session);
  CHECK(auth.signed_in(*session));
  CHECK_FALSE(auth.redeem(token));          // spent
  CHECK_FALSE(auth.redeem(""));
  CHECK_FALSE(auth.redeem(token.substr(0, 31)));
  CHECK_FALSE(auth.signed_in(token));       // a token is no session
  CHECK_FALSE(auth.signed_in(""));
}

TEST_CASE("old dashboard tokens and sessions give way to new ones", "[unit][dashboard]") {
  DashboardAuth auth;
  const std::string oldest = auth.mint_token();
  for (std::size_t i = 0; i < DashboardAuth::max_tokens; ++i) auth.mint_token();
  CHECK_FALSE(auth.redeem(oldest));
  auto first = auth.redeem(auth.mint_token());
  REQUIRE(first);
  for (std::size_t i = 0; i < DashboardAuth::max_sessions; ++i) REQUIRE(auth.redeem(auth.mint_token()));
  CHECK_FALSE(auth.signed_in(*first));
}

TEST_CASE("the dashboard's cookie is found among others", "[unit][dashboard]") {
  using services::cookie_value;
  CHECK(cookie_value("editgate_dashboard=abc", "editgate_dashboard") == "abc");
  CHECK(cookie_value("a=1; editgate_dashboard=abc; b=2", "editgate_dashboard") == "abc");
  CHECK(cookie_value("xeditgate_dashboard=abc", "editgate_dashboard") == std::nullopt);
  CHECK(cookie_value("editgate_dashboardx=abc", "editgate_dashboard") == std::nullopt);
  CHECK(cookie_value("", "editgate_dashboard") == std::nullopt);
  CHECK(cookie_value(";;", "editgate_dashboard") == std::nullopt);
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
  REQUIRE(a.decide("http://app.example", true));
  CHECK(a.ask("http://app.example") == V::allowed);
  REQUIRE(a.decide("http://app.example", false));
  CHECK(a.ask("http://app.example") == V::refused);
  CHECK(changes == 3);
  auto never = a.decide("http://never.example", true);
  REQUIRE_FALSE(never);
  CHECK(never.error().code == services::Error::not_found);
}

TEST_CASE("a flood of origins fills the pending list and is refused past it", "[unit][dashboard]") {
  OriginApprovals a;
  for (std::size_t i = 0; i < OriginApprovals::max_pending; ++i)
    REQUIRE(a.ask("http://o" + std::to_string(i) + ".example") == V::pending);
  CHECK(a.ask("http://late.example") == V::full);
  CHECK(a.ask("http://o0.example") == V::pending);  // those already there still wait
  REQUIRE(a.decide("http://o0.example", true));
  CHECK(a.ask("http://late.example") == V::pending);  // a place was freed
}
