// Where editgate keeps things (services/places.hpp): the state folder per
// user and the agents' folder in the git folder, for plain clones, linked
// work trees, a .git that is a link, a gitdir file written on Windows, a
// workspace below its repository's top; and the state home refused where
// another user could swap it.
#include "services/places.hpp"
#include "services/state_dir.hpp"
#include "places.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <string>

using namespace services;

namespace {

// XDG_STATE_HOME set for one scope, then put back.
struct StateHome {
  std::string before;
  explicit StateHome(const std::string& dir) : before(std::getenv("XDG_STATE_HOME") ? std::getenv("XDG_STATE_HOME") : "") {
    ::setenv("XDG_STATE_HOME", dir.c_str(), 1);
  }
  ~StateHome() { ::setenv("XDG_STATE_HOME", before.c_str(), 1); }
};

}  // namespace

TEST_CASE("places: the state folder is per user, named for the workspace; the agents' folder is in the git folder",
          "[places][unit]") {
  test::TempDir home, dir;
  StateHome set(home.str());
  test::git_ok(dir.path(), {"init", "-q"});
  const Places p = test::places(dir.path());
  CHECK(p.root == test::fs::canonical(dir.path()).string());
  CHECK(p.id.size() == 16);
  CHECK(p.state == home.str() + "/editgate/workspaces/" + dir.path().filename().string() + "-" + p.id);
  CHECK(p.agents == p.root + "/.git/editgate");
  // A relative XDG_STATE_HOME is not one (the XDG rule): HOME's default.
  {
    StateHome relative("relative/state");
    CHECK(test::places(dir.path()).state.find("/.local/state/editgate/workspaces/") != std::string::npos);
  }
  // Below the top, a workspace of its own: its own agents' folder.
  test::fs::create_directories(dir / "docs");
  const Places sub = test::places(dir / "docs");
  CHECK(sub.agents == p.root + "/.git/editgate/docs-" + sub.id);
  CHECK(sub.state != p.state);
}

TEST_CASE("places: a linked work tree, a .git that is a link, a gitdir file with CRLF", "[places][unit]") {
  test::TempDir top;
  const auto main = top / "main";
  test::fs::create_directories(main);
  test::git_ok(main, {"init", "-q"});
  test::write_file(main / "a.txt", "a\n");
  test::git_ok(main, {"add", "a.txt"});
  test::git_ok(main, {"commit", "-qm", "a"});
  test::git_ok(main, {"worktree", "add", "-q", (top / "wt").string()});
  CHECK(test::places(top / "wt").agents ==
        test::fs::canonical(main / ".git/worktrees/wt").string() + "/editgate");

  // A .git that is a link to the git folder is that git folder, never the
  // enclosing repository's.
  const auto inner = main / "inner";
  test::fs::create_directories(inner);
  test::git_ok(top.path(), {"init", "-q", "--bare", (top / "inner.git").string()});
  test::fs::create_directory_symlink(top / "inner.git", inner / ".git");
  CHECK(test::places(inner).agents == test::fs::canonical(top / "inner.git").string() + "/editgate");

  // "gitdir: ...\r\n" as an editor on Windows leaves it.
  const auto crlf = top / "crlf";
  test::fs::create_directories(crlf);
  test::write_file(crlf / ".git", "gitdir: ../inner.git\r\n");
  CHECK(test::places(crlf).agents == test::fs::canonical(top / "inner.git").string() + "/editgate");
}

TEST_CASE("places: no secret is kept below a folder another user could change", "[places][unit]") {
  test::TempDir open;
  // World-writable and not sticky: whoever can write it can rename our folder away.
  ::chmod(open.path().c_str(), 0777);
  StateHome set((open / "state").string());
  test::TempDir dir;
  auto made = make_state_folder(test::places(dir.path()));
  REQUIRE_FALSE(made.has_value());
  CHECK(made.error().code == Error::io);
  CHECK_THAT(made.error().message, Catch::Contains("can be changed by another user") &&
                                       Catch::Contains("set XDG_STATE_HOME"));
  CHECK_FALSE(test::fs::exists(open / "state/editgate"));
  // Sticky, as /tmp is: others cannot rename what is ours.
  ::chmod(open.path().c_str(), 01777);
  CHECK(make_state_folder(test::places(dir.path())).has_value());
}

TEST_CASE("places: one gateway per workspace, also across two state homes (they would share the inbox)",
          "[places][unit]") {
  test::TempDir home1, home2, dir;
  test::git_ok(dir.path(), {"init", "-q"});
  std::optional<services::StateDir> first;
  {
    StateHome set(home1.str());
    auto opened = StateDir::open(test::places(dir.path()));
    REQUIRE(opened.has_value());
    first.emplace(std::move(*opened));
    REQUIRE(first->hold_agents(test::places(dir.path()).agents).has_value());
  }
  StateHome set(home2.str());
  auto second = StateDir::open(test::places(dir.path()));
  REQUIRE(second.has_value());  // another state home: its own lock
  auto agents = second->hold_agents(test::places(dir.path()).agents);
  REQUIRE_FALSE(agents.has_value());
  CHECK(agents.error().code == Error::in_use);
  CHECK_THAT(agents.error().message, Catch::Contains("another gateway serves this workspace"));
  first.reset();
  CHECK(second->hold_agents(test::places(dir.path()).agents).has_value());
}
