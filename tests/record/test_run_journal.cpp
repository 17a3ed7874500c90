// The edit-run journal: files a run wrote and did not commit (it was
// killed, or its commit failed) are committed by the next run as that
// run's agent's, not left to pass for the user's own changes. A run "dies"
// here by dropping its journal without committing: its flock goes with it,
// exactly as when the process is killed.
#include "journal_repo.hpp"
#include "support.hpp"

#include "record/run_commit.hpp"
#include "record/run_journal.hpp"
#include "git/repository.hpp"

#include <catch2/catch.hpp>

#include <optional>

using Catch::Contains;
using test::git_ok;
using test::read_file;
using test::TempDir;
using test::write_file;

namespace {

using Repo = test::JournalRepo;

// A run of `agent` that writes `response` through its journal and commits
// only when `commit` is set; the journal is dropped on return either way.
void run(const Repo& r, const std::string& response, const std::string& agent, bool commit) {
  auto ws = editproto::Workspace::open(r.dir.str());
  REQUIRE(ws.has_value());
  auto repo = editgit::Repository::open(r.dir.str());
  REQUIRE(repo.has_value());
  record::RunJournal journal(repo->gitdir(), agent, "s-" + agent);
  editproto::Options opt;
  opt.dry_run = false;
  opt.on_write = [&](const std::string& path, const std::string* base, std::span<const std::string_view> bytes) {
    journal.writing(path, base, bytes);
  };
  editproto::Applier applier(*ws, opt);
  for (const editproto::Block& b : test::parse(response)) applier.submit(b);
  record::RunReport report;
  report.blocks = applier.flush();
  REQUIRE(report.blocks.size() >= 1);
  REQUIRE(report.blocks[0].status == editproto::Status::applied);
  CHECK_FALSE(journal.file().empty());
  if (!commit) return;
  report.session = "s-" + agent;
  record::record_edits(*repo, applier, report, agent);
  REQUIRE_FALSE(report.commit_error);
  journal.committed();
}

std::vector<record::Interrupted> recover(const Repo& r) {
  auto ws = editproto::Workspace::open(r.dir.str());
  REQUIRE(ws.has_value());
  auto repo = editgit::Repository::open(r.dir.str());
  REQUIRE(repo.has_value());
  auto left = record::commit_interrupted(*ws, *repo);
  REQUIRE(left.has_value());
  return std::move(*left);
}

}  // namespace

TEST_CASE("run journal: what a killed run wrote is committed by the next run as its agent's, marked interrupted") {
  Repo r;
  run(r, test::block("a.txt", {"two"}, {"TWO"}) + test::block("b.txt", {"three"}, {"THREE"}), "killed-agent", false);
  CHECK(r.journals() == 1);
  CHECK(r.git({"status", "--porcelain"}) == " M a.txt\n M b.txt\n");

  auto left = recover(r);
  REQUIRE(left.size() == 1);
  CHECK(left[0].agent == "killed-agent");
  CHECK(left[0].session == "s-killed-agent");
  CHECK(left[0].paths == std::vector<std::string>{"a.txt", "b.txt"});
  CHECK(left[0].changed_since.empty());
  REQUIRE(left[0].commit);
  CHECK(r.git({"log", "-1", "--format=%H"}) == *left[0].commit + "\n");
  CHECK(r.git({"log", "-1", "--format=%an"}) == "killed-agent\n");
  CHECK(r.git({"log", "-1", "--format=%s"}) == "edit a.txt, b.txt (left by an interrupted run)\n");
  const std::string body = r.git({"log", "-1", "--format=%B"});
  CHECK_THAT(body, Contains("Editgate-Kind: edit"));
  CHECK_THAT(body, Contains("Editgate-Session: s-killed-agent"));
  CHECK(r.git({"show", "HEAD:a.txt"}) == "one\nTWO\n");
  CHECK(r.git({"status", "--porcelain"}).empty());
  CHECK(r.journals() == 0);
  // Nothing is left for a second look.
  CHECK(recover(r).empty());
}

TEST_CASE("run journal: the next run's own commit holds only its edit, the interrupted one goes first") {
  Repo r;
  run(r, test::block("a.txt", {"two"}, {"TWO"}), "killed-agent", false);
  // What `editgate apply` and the gateway do at the start of a run.
  CHECK(recover(r).size() == 1);
  run(r, test::block("a.txt", {"TWO"}, {"2"}), "next-agent", true);
  CHECK(r.git({"log", "--format=%an|%s", "-3"}) ==
        "next-agent|edit a.txt (1 applied)\n"
        "killed-agent|edit a.txt (left by an interrupted run)\n"
        "Repo User|start\n");
  CHECK(r.journals() == 0);
}

TEST_CASE("run journal: a committed run leaves no journal, and a live run's journal is not touched") {
  Repo r;
  run(r, test::block("a.txt", {"two"}, {"TWO"}), "done-agent", true);
  CHECK(r.journals() == 0);
  CHECK(recover(r).empty());

  // A run still writing (its journal held) in this or another process.
  auto ws = editproto::Workspace::open(r.dir.str());
  auto repo = editgit::Repository::open(r.dir.str());
  REQUIRE((ws && repo));
  record::RunJournal live(repo->gitdir(), "live-agent", "s-live");
  const std::string_view bytes = "one\nTWO\nlive\n";
  const std::string base = "one\nTWO\n";
  live.writing("a.txt", &base, std::span<const std::string_view>(&bytes, 1));
  write_file(r.dir / "a.txt", std::string(bytes));
  CHECK(recover(r).empty());
  CHECK(r.journals() == 1);
  CHECK(r.git({"status", "--porcelain"}) == " M a.txt\n");
}

TEST_CASE("run journal: a file changed after the interrupted run wrote it is left as it is") {
  Repo r;
  run(r, test::block("a.txt", {"two"}, {"TWO"}) + test::block("b.txt", {"three"}, {"THREE"}), "killed-agent", false);
  write_file(r.dir / "b.txt", "the user's own\n");
  auto left = recover(r);
  REQUIRE(left.size() == 1);
  CHECK(left[0].paths == std::vector<std::string>{"a.txt"});
  CHECK(left[0].changed_since == std::vector<std::string>{"b.txt"});
  CHECK(r.git({"log", "-1", "--format=%s"}) == "edit a.txt (left by an interrupted run)\n");
  CHECK(r.git({"status", "--porcelain"}) == " M b.txt\n");
  CHECK(read_file(r.dir / "b.txt") == "the user's own\n");
  CHECK(r.journals() == 0);
}

TEST_CASE("run journal: a run that began on uncommitted changes says its commit holds them too") {
  Repo r;
  write_file(r.dir / "a.txt", "one\ntwo\nuser line\n");
  run(r, test::block("a.txt", {"two"}, {"TWO"}), "killed-agent", false);
  auto left = recover(r);
  REQUIRE(left.size() == 1);
  CHECK(r.git({"show", "HEAD:a.txt"}) == "one\nTWO\nuser line\n");
  CHECK_THAT(r.git({"log", "-1", "--format=%b"}),
             Contains("a.txt had uncommitted changes before that run; this commit holds them too."));
}
