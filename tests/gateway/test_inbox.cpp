// The inbox door in-process: a dropped message goes through the one
// dispatch to the edit op, its text read from the file a piece at a time,
// and the op's replies become the outbox's answer.
#include "gateway/inbox.hpp"
#include "services/gateway.hpp"
#include "services/worker.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <string>

namespace {

namespace json = boost::json;

// Takes inbox/<name> on a worker of `dir`'s workspace and returns the answer.
json::object take(const test::TempDir& dir, const std::string& name) {
  const std::string agents = (dir / "agents").string();
  auto worker = services::Worker::open(dir.str());
  REQUIRE(worker);
  services::Gateway gw(services::Binding{}, "cookie", **worker, services::ServeLimits{}, "workspace");
  (*worker)->post([&] { gateway::take_inbox(gw, agents, name, [] { return std::uint64_t{7}; }); });
  (*worker)->join();
  const std::string stem = name.substr(0, name.size() - 3);
  CHECK(test::read_file(dir / ("agents/outbox/" + stem + ".completed.marker")) == "7\n");
  return json::parse(test::read_file(dir / ("agents/outbox/" + stem + ".json"))).as_object();
}

// A repository of `dir` whose one commit holds notes.txt with `text`.
void committed_notes(const test::TempDir& dir, const std::string& text) {
  test::git_ok(dir.path(), {"init", "-q"});
  test::write_file(dir / "notes.txt", text);
  test::git_ok(dir.path(), {"add", "notes.txt"});
  test::git_ok(dir.path(), {"commit", "-qm", "notes"});
}

}  // namespace

TEST_CASE("an inbox message longer than one read is applied whole, each block where the text put it",
          "[gateway][inbox][unit]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  std::string original, message;
  for (int i = 0; i < 3000; ++i) original += "line " + std::to_string(i) + " of the file, long enough to matter\n";
  test::write_file(dir / "big.txt", original);
  test::git_ok(dir.path(), {"add", "big.txt"});
  test::git_ok(dir.path(), {"commit", "-qm", "big"});
  // 1,000 blocks, about 190 KiB: the text arrives in several pieces, and
  // blocks are cut between them.
  std::string expected = original;
  for (int i = 0; i < 3000; i += 3) {
    const std::string line = "line " + std::to_string(i) + " of the file, long enough to matter\n";
    const std::string now = "line " + std::to_string(i) + " changed by the inbox\n";
    message += "Block for line " + std::to_string(i) + ", with some prose around it.\n\nbig.txt\n««« EDIT\n" + line +
               "═══════ REPL\n" + now + "»»» EDIT END\n\n";
    expected.replace(expected.find(line), line.size(), now);
  }
  REQUIRE(message.size() > 2 * 64 * 1024);
  test::write_file(dir / "agents/inbox/many.md", message);

  const json::object answer = take(dir, "many.md");
  CHECK(answer.at("status") == json::array{"done"});
  CHECK(answer.at("ok") == true);
  CHECK(answer.at("summary") == "1000 applied");
  CHECK(answer.at("blocks").as_array().size() == 1000);
  CHECK(answer.at("commit").is_string());
  CHECK(answer.at("text").as_string().ends_with("(session " + std::string(answer.at("session").as_string()) + ")\n"));
  CHECK(test::read_file(dir / "big.txt") == expected);
  CHECK(test::read_file(dir / "agents/outbox/many.md") == message);
  CHECK_FALSE(test::fs::exists(dir / "agents/inbox/many.md"));
}

TEST_CASE("an inbox file that is a link is refused as not a file, and what it leads to is never applied",
          "[gateway][inbox][unit]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  test::write_file(dir / "notes.txt", "alpha\n");
  // A message outside the inbox, written by anyone, reached through a link.
  test::write_file(dir / "elsewhere.md", "notes.txt\n««« EDIT\nalpha\n═══════ REPL\nlinked\n»»» EDIT END\n");
  test::fs::create_directories(dir / "agents/inbox");
  test::fs::create_symlink(dir / "elsewhere.md", dir / "agents/inbox/link.md");

  const json::object answer = take(dir, "link.md");
  CHECK(answer.at("status") == json::array{"done", "error"});
  CHECK(answer.at("reason") == "bad_request");
  CHECK(answer.at("error") == "bad_request: not a file");
  CHECK(answer.at("blocks").as_array().empty());
  CHECK(test::read_file(dir / "notes.txt") == "alpha\n");
}

TEST_CASE("an inbox message whose blocks fail is answered with the failures and an error status, nothing committed",
          "[gateway][inbox][unit]") {
  test::TempDir dir;
  committed_notes(dir, "alpha\n");
  test::write_file(dir / "agents/inbox/bad.md", "notes.txt\n««« EDIT\nbeta\n═══════ REPL\ngamma\n»»» EDIT END\n");

  const json::object answer = take(dir, "bad.md");
  CHECK(answer.at("status") == json::array{"done", "error"});
  CHECK(answer.at("ok") == false);
  CHECK_FALSE(answer.contains("error"));  // the request did not fail; a block did
  CHECK(answer.at("blocks").at(0).at("status") == "failed");
  CHECK(answer.at("text").as_string().find("notes.txt: failed") == 0);
  CHECK(answer.at("commit").is_null());
  CHECK(test::git_ok(dir.path(), {"rev-list", "--count", "HEAD"}) == "1\n");
}

TEST_CASE("a second event for one inbox drop, while its run goes on, applies nothing twice", "[gateway][inbox][unit]") {
  test::TempDir dir;
  committed_notes(dir, "alpha\n");
  // Applied twice, this block would add a second beta: its anchor still matches.
  test::write_file(dir / "agents/inbox/twice.md", "notes.txt\n««« EDIT\nalpha\n═══════ REPL\nalpha\nbeta\n»»» EDIT END\n");
  const std::string agents = (dir / "agents").string();
  auto worker = services::Worker::open(dir.str());
  REQUIRE(worker);
  services::Gateway gw(services::Binding{}, "cookie", **worker, services::ServeLimits{}, "workspace");
  int answers = 0;
  (*worker)->post([&] {
    gateway::take_inbox(gw, agents, "twice.md", [&] { return std::uint64_t(++answers); });
    gateway::take_inbox(gw, agents, "twice.md", [&] { return std::uint64_t(++answers); });
  });
  (*worker)->join();
  CHECK(answers == 1);
  CHECK(test::read_file(dir / "notes.txt") == "alpha\nbeta\n");
  CHECK(test::read_file(dir / "agents/outbox/twice.md").find("beta") != std::string::npos);
  const json::object answer = json::parse(test::read_file(dir / "agents/outbox/twice.json")).as_object();
  CHECK(answer.at("summary") == "1 applied");
}

TEST_CASE("an inbox message's diagnostic suggests no option: a dropped message sets none", "[gateway][inbox][unit]") {
  test::TempDir dir;
  committed_notes(dir, "\talpha\n");
  test::write_file(dir / "agents/inbox/ws.md",
                   "notes.txt\n««« EDIT\n    alpha\n═══════ REPL\n    beta\n»»» EDIT END\n");

  const json::object answer = take(dir, "ws.md");
  const std::string text(answer.at("text").as_string());
  CHECK(answer.at("blocks").at(0).at("reason") == "whitespace");
  CHECK(text.find("Copy those lines exactly as the file has them.") != std::string::npos);
  CHECK(text.find("fuzz") == std::string::npos);
}
