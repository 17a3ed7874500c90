// The run driver every edit run goes through (record/run_driver.hpp): its
// two modes of applying, the journal, the commit through the caller's
// function, the warnings.
#include "journal_repo.hpp"
#include "support.hpp"

#include "record/run_driver.hpp"
#include "git/repository.hpp"

#include <catch2/catch.hpp>

#include <optional>

using Catch::Contains;
using test::read_file;

namespace {

using Mode = record::RunDriver::Mode;

struct Repo : test::JournalRepo {
  std::optional<editproto::Workspace> ws;
  std::optional<editgit::Repository> repo;
  Repo() {
    auto w = editproto::Workspace::open(dir.str());
    REQUIRE(w.has_value());
    ws.emplace(std::move(*w));
    auto r = editgit::Repository::open(dir.str());
    REQUIRE(r.has_value());
    repo.emplace(std::move(*r));
  }
  // Commits at once, on this handle (as the CLI does).
  record::CommitWith commit() {
    return [this](const record::RepoWork& work) -> editgit::Result<void> {
      work(*repo);
      return {};
    };
  }
};

record::RunParams params(bool dry_run = false) {
  record::RunParams p;
  p.dry_run = dry_run;
  p.agent = "driver-agent";
  p.session = "s-driver";
  return p;
}

// Two blocks on one file, then one on another.
const std::string two_on_a = test::block("a.txt", {"one"}, {"ONE"}) + test::block("a.txt", {"two"}, {"TWO"});

}  // namespace

TEST_CASE("run driver: a streamed run writes each block's file the moment the block is complete") {
  Repo r;
  std::vector<std::string> seen;  // a.txt as each block's result arrives
  record::RunDriver run(*r.ws, params(), Mode::streamed, r.repo->gitdir(),
                        {.before = {}, .after = [&](const editproto::BlockResult&) {
                           seen.push_back(read_file(r.dir / "a.txt"));
                         }});
  auto first = run.feed(test::block("a.txt", {"one"}, {"ONE"}));
  REQUIRE(first.size() == 1);
  CHECK(first[0].status == editproto::Status::applied);
  CHECK(read_file(r.dir / "a.txt") == "ONE\ntwo\n");
  CHECK(r.journals() == 1);  // the write is journalled until it is committed
  auto second = run.feed(test::block("a.txt", {"two"}, {"TWO"}));
  REQUIRE(second.size() == 1);
  CHECK(run.finish().empty());
  CHECK(seen == std::vector<std::string>{"ONE\ntwo\n", "ONE\nTWO\n"});
  CHECK(run.report().blocks.size() == 2);

  run.commit(r.commit());
  const record::RunReport& report = run.report();
  REQUIRE(report.commit);
  CHECK_FALSE(report.commit_error);
  CHECK(report.session == "s-driver");
  CHECK(r.git({"log", "-1", "--format=%H"}) == *report.commit + "\n");
  CHECK(r.git({"log", "-1", "--format=%an|%s"}) == "driver-agent|edit a.txt (2 applied)\n");
  CHECK(r.git({"status", "--porcelain"}).empty());
  CHECK(r.journals() == 0);  // a clean commit lets the journal go
}

TEST_CASE("run driver: a whole run applies nothing before finish, then writes each file once") {
  Repo r;
  std::vector<std::string> seen;
  record::RunDriver run(*r.ws, params(), Mode::whole, r.repo->gitdir(),
                        {.before = {}, .after = [&](const editproto::BlockResult&) {
                           seen.push_back(read_file(r.dir / "a.txt"));
                         }});
  CHECK(run.feed(two_on_a).empty());
  CHECK(read_file(r.dir / "a.txt") == "one\ntwo\n");
  CHECK(r.journals() == 0);  // nothing written, nothing journalled
  auto results = run.finish();
  REQUIRE(results.size() == 2);
  CHECK(results[0].status == editproto::Status::applied);
  CHECK(results[1].status == editproto::Status::applied);
  // One write with both blocks in it: the first result already sees the second's change.
  CHECK(seen == std::vector<std::string>{"ONE\nTWO\n", "ONE\nTWO\n"});
  run.commit(r.commit());
  REQUIRE(run.report().commit);
  CHECK(r.git({"show", "HEAD:a.txt"}) == "ONE\nTWO\n");
  CHECK(r.journals() == 0);
}

TEST_CASE("run driver: a dry run writes nothing, keeps no journal and commits nothing") {
  for (Mode mode : {Mode::streamed, Mode::whole}) {
    Repo r;
    const std::string head = r.git({"rev-parse", "HEAD"});
    record::RunDriver run(*r.ws, params(true), mode, r.repo->gitdir());
    run.feed(two_on_a + test::block("b.txt", {"three"}, {"THREE"}));
    run.finish();
    REQUIRE(run.report().blocks.size() == 3);
    for (const editproto::BlockResult& b : run.report().blocks) CHECK(b.status == editproto::Status::validated);
    CHECK(r.journals() == 0);
    bool called = false;
    run.commit([&](const record::RepoWork&) -> editgit::Result<void> {
      called = true;
      return {};
    });
    CHECK_FALSE(called);
    CHECK(run.report().dry_run);
    CHECK_FALSE(run.report().commit);
    CHECK(read_file(r.dir / "a.txt") == "one\ntwo\n");
    CHECK(read_file(r.dir / "b.txt") == "three\n");
    CHECK(r.git({"rev-parse", "HEAD"}) == head);
    CHECK(r.git({"status", "--porcelain"}).empty());
  }
}

TEST_CASE("run driver: a failed commit leaves the journal, and the next run commits what it names") {
  Repo r;
  {
    record::RunDriver run(*r.ws, params(), Mode::streamed, r.repo->gitdir());
    run.feed(test::block("b.txt", {"three"}, {"THREE"}));
    run.commit([](const record::RepoWork&) -> editgit::Result<void> {
      return editgit::Failure{editgit::Error::locked, "index.lock is held"};
    });
    REQUIRE(run.report().commit_error);
    CHECK(*run.report().commit_error == "locked: index.lock is held");
    CHECK_FALSE(run.report().commit);
    CHECK(record::verdict(run.report()) == record::Verdict::commit_failed);
  }
  CHECK(r.journals() == 1);
  CHECK(r.git({"status", "--porcelain"}) == " M b.txt\n");

  record::RunDriver next(*r.ws, params(), Mode::whole, r.repo->gitdir());
  REQUIRE(next.commit_interrupted(r.commit()).has_value());
  REQUIRE(next.report().interrupted.size() == 1);
  CHECK(next.report().interrupted[0].paths == std::vector<std::string>{"b.txt"});
  CHECK(r.git({"log", "-1", "--format=%s"}) == "edit b.txt (left by an interrupted run)\n");
  CHECK(r.journals() == 0);
}

TEST_CASE("run driver: stray markers are collected as warnings, whatever the chunking") {
  const std::string stray = "prose\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
  const std::string text = stray + test::block("a.txt", {"one"}, {"ONE"});
  for (Mode mode : {Mode::streamed, Mode::whole}) {
    Repo r;
    record::RunDriver run(*r.ws, params(true), mode, std::nullopt);
    for (std::size_t i = 0; i < text.size(); i += 7) run.feed(std::string_view(text).substr(i, 7));
    run.finish();
    REQUIRE(run.report().warnings.size() == 1);
    CHECK(run.report().warnings[0].line == 2);
    CHECK(run.report().warnings[0].code == editproto::WarningCode::stray_marker);
    CHECK_THAT(run.report().warnings[0].message, Contains("outside any block"));
    REQUIRE(run.report().blocks.size() == 1);
    CHECK(run.report().blocks[0].status == editproto::Status::validated);
  }
}
