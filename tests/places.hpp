// Where a workspace's gateway keeps its files (services/places.hpp), for the
// tests that read them as an agent or a client would.
#pragma once

#include "services/places.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

namespace test {

inline services::Places places(const fs::path& root) {
  auto p = services::places_of(root.string());
  REQUIRE(p.has_value());
  return *p;
}
// The per-user state folder: cookie, port, server.json, page-keys...
inline fs::path state_of(const fs::path& root) { return places(root).state; }
// The agents' folder in the git folder: pages/, inbox/, outbox/.
inline fs::path agents_of(const fs::path& root) {
  auto p = places(root);
  REQUIRE(!p.agents.empty());
  return p.agents;
}

}  // namespace test
