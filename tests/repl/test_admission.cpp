// New page instances per origin (repl/admission.hpp): a burst, then one per
// interval; a cap for the run; the built-in Node page exempt.
#include "repl/admission.hpp"

#include <catch2/catch.hpp>

using namespace std::chrono_literals;
using repl::Admission;
using repl::Error;

TEST_CASE("an origin's new pages come in a burst, then one per interval", "[repl][unit]") {
  Admission admission({.burst = 2, .every = 1000ms, .per_origin = 64});
  const auto t = Admission::clock::now();
  CHECK_FALSE(admission.admit("http://a", t));
  CHECK_FALSE(admission.admit("http://a", t));
  CHECK(admission.admit("http://a", t) == Error::rate_limited);
  // Another origin has a bucket of its own.
  CHECK_FALSE(admission.admit("http://b", t));
  // Half an interval makes half a token: not yet; a whole one makes one.
  CHECK(admission.admit("http://a", t + 500ms) == Error::rate_limited);
  CHECK_FALSE(admission.admit("http://a", t + 1000ms));
  CHECK(admission.admit("http://a", t + 1000ms) == Error::rate_limited);
  // A long pause refills the bucket to its burst, no further.
  CHECK_FALSE(admission.admit("http://a", t + 1h));
  CHECK_FALSE(admission.admit("http://a", t + 1h));
  CHECK(admission.admit("http://a", t + 1h) == Error::rate_limited);
}

TEST_CASE("an origin makes at most per_origin pages in a run, the Node page exempt", "[repl][unit]") {
  Admission admission({.burst = 1, .every = 1ms, .per_origin = 3});
  auto t = Admission::clock::now();
  for (int i = 0; i < 3; ++i) CHECK_FALSE(admission.admit("http://a", t += 1s));
  CHECK(admission.admit("http://a", t += 1s) == Error::too_many_pages);
  CHECK(admission.admit("http://a", t += 1h) == Error::too_many_pages);
  CHECK_FALSE(admission.admit("http://b", t));
  // The gateway's own page, however often it comes.
  for (int i = 0; i < 10; ++i) CHECK_FALSE(admission.admit("", t));
}

TEST_CASE("past a thousand origins counted, a new origin makes no page", "[repl][unit]") {
  Admission admission({.burst = 1, .every = 1h, .per_origin = 64});
  const auto t = Admission::clock::now();
  for (int i = 0; i < 1000; ++i) REQUIRE_FALSE(admission.admit("http://o" + std::to_string(i), t));
  CHECK(admission.admit("http://new", t) == Error::too_many_pages);
  // Those counted already go on.
  CHECK(admission.admit("http://o1", t + 1h) == std::nullopt);
}
