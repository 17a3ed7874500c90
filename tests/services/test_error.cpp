// The one error model: each code has a wire name of its own, and what a
// door shows is derived from the code.
#include "services/error.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using services::Error;

TEST_CASE("every error code has a wire name of its own, which names it back", "[error][unit]") {
  std::set<std::string> names;
  for (int e = static_cast<int>(Error::unauthorized); e <= static_cast<int>(Error::too_many_screenshots); ++e) {
    const Error code = static_cast<Error>(e);
    const std::string name(to_string(code));
    INFO(name);
    CHECK(names.insert(name).second);
    CHECK(services::error_named(name) == code);
  }
  CHECK_FALSE(services::error_named("no_such_code"));
}

TEST_CASE("the gateway's request timeout and a page's job timeout are two codes with two statuses",
          "[error][unit]") {
  // A client that waited on its own request (408) is told apart from code
  // that ran too long in a page (504), by the name alone.
  CHECK(to_string(Error::request_timeout) == "request_timeout");
  CHECK(services::http_status(Error::request_timeout) == 408);
  CHECK(to_string(Error::page_timeout) == "timeout");
  CHECK(services::http_status(Error::page_timeout) == 504);
  CHECK(services::error_named("timeout") == Error::page_timeout);
  CHECK(services::error_named("request_timeout") == Error::request_timeout);
}
