// Commits through the git layer in real repositories, checked independently
// with the git command line (status, show, ls-tree, fsck).
#include "support.hpp"

#include "record/edit_log.hpp"
#include "record/run_commit.hpp"
#include "git/repository.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <thread>

using Catch::Contains;
using record::RunReport;
using test::fs::path;
using test::git;
using test::git_ok;
using test::read_file;
using test::TempDir;
using test::write_file;

namespace {

struct Repo {
  TempDir dir;
  explicit Repo(bool init = true) {
    if (!init) return;
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    git_ok(dir.path(), {"config", "user.name", "Repo User"});
    git_ok(dir.path(), {"config", "user.email", "user@example.com"});
  }
  path operator/(const std::string& rel) const { return dir / rel; }
  std::string git(std::vector<std::string> args) const { return git_ok(dir.path(), std::move(args)); }
  void commit_all(const std::string& message) {
    git({"add", "-A"});
    git({"commit", "-q", "-m", message});
  }
  std::string status() const { return git({"status", "--porcelain"}); }
  std::string head() const { return git({"rev-parse", "HEAD"}).substr(0, 40); }
  void fsck() const { git({"fsck", "--strict", "--no-dangling"}); }
};

// Applies `response` to `root` and commits what it wrote, as `editgate apply` does.
record::RunReport apply_and_commit(const path& root, const std::string& response, editgit::Options options = {},
                const std::string& agent = "claude") {
  auto ws = editproto::Workspace::open(root.string());
  REQUIRE(ws.has_value());
  auto repo = editgit::Repository::open(root.string(), std::move(options));
  REQUIRE(repo.has_value());
  editproto::Options opt;
  opt.dry_run = false;
  editproto::Applier applier(*ws, opt);
  for (const editproto::Block& b : test::parse(response)) applier.submit(b);
  record::RunReport report;
  report.dry_run = false;
  report.session = "s-1";
  report.blocks = applier.flush();
  record::record_edits(*repo, applier, report, agent);
  return report;
}

const std::string kEditA = test::block("a.txt", {"two"}, {"TWO"});

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t nl = s.find('\n', at);
    out.push_back(s.substr(at, nl - at));
    at = nl == std::string::npos ? s.size() : nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("git: the first commit on an unborn HEAD creates the branch") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  CHECK_FALSE(rep.commit_error);
  CHECK(r.head() == *rep.commit);
  CHECK(r.git({"rev-parse", "--abbrev-ref", "HEAD"}) == "main\n");
  CHECK(r.git({"rev-list", "--count", "HEAD"}) == "2\n");  // a.txt was untracked: its earlier state comes first
  CHECK(r.git({"show", "HEAD~1:a.txt"}) == "one\ntwo\n");
  CHECK(r.git({"show", "HEAD:a.txt"}) == "one\nTWO\n");
  CHECK(r.status().empty());
  r.fsck();
}

TEST_CASE("git: a workspace without a repository gets one - no commit when nothing applied") {
  Repo r(false);
  write_file(r / "a.txt", "one\ntwo\n");
  record::RunReport failed = apply_and_commit(r.dir.path(), test::block("a.txt", {"three"}, {"3"}));
  CHECK(failed.blocks[0].status == editproto::Status::failed);
  CHECK_FALSE(failed.commit);
  CHECK(test::fs::is_directory(r / ".git"));
  CHECK(git(r.dir.path(), {"rev-parse", "--verify", "-q", "HEAD"}).exit_code != 0);  // still unborn

  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  CHECK(r.git({"show", "HEAD:a.txt"}) == "one\nTWO\n");
  r.fsck();
}

TEST_CASE("git: unrelated dirty, untracked and staged work stays as it was and out of the commit") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  write_file(r / "b.txt", "b\n");
  write_file(r / "d.txt", "d\n");
  r.commit_all("init");
  write_file(r / "b.txt", "b changed, not staged\n");
  write_file(r / "c.txt", "untracked\n");
  write_file(r / "d.txt", "d changed and staged\n");
  r.git({"add", "d.txt"});
  const std::string before = r.status();
  CHECK(before == " M b.txt\nM  d.txt\n?? c.txt\n");

  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  CHECK_FALSE(rep.earlier_commit);
  CHECK(r.status() == before);
  CHECK(r.git({"show", "--format=", "--name-only", "HEAD"}) == "a.txt\n");
  CHECK(r.git({"show", "HEAD:d.txt"}) == "d\n");
  CHECK(r.git({"show", ":d.txt"}) == "d changed and staged\n");  // the staged version is still staged
  CHECK(read_file(r / "b.txt") == "b changed, not staged\n");
  r.fsck();
}

TEST_CASE("git: an edited file's uncommitted earlier state is committed first, as the user's") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\nthree\n");
  r.commit_all("init");
  write_file(r / "a.txt", "one\ntwo\nthree\nuser's line\n");

  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  REQUIRE(rep.earlier_commit);
  CHECK(r.git({"rev-parse", "HEAD~1"}).substr(0, 40) == *rep.earlier_commit);
  CHECK(r.git({"log", "-1", "--format=%an <%ae>|%cn", "HEAD~1"}) == "Repo User <user@example.com>|editgate\n");
  CHECK(r.git({"log", "-1", "--format=%an <%ae>|%cn", "HEAD"}) == "claude <claude@editgate.invalid>|editgate\n");
  CHECK_THAT(r.git({"log", "-1", "--format=%B", "HEAD~1"}), Contains("Editgate-Kind: earlier-state"));
  // The user's line is in the earlier commit; the agent's commit shows only the agent's change.
  CHECK_THAT(r.git({"show", "--format=", "HEAD~1"}), Contains("+user's line"));
  const std::string agent_diff = r.git({"show", "--format=", "HEAD"});
  CHECK_THAT(agent_diff, Contains("-two\n+TWO"));
  CHECK(agent_diff.find("user's line\n+") == std::string::npos);
  CHECK(agent_diff.find("+user's") == std::string::npos);
  CHECK(r.status().empty());
}

TEST_CASE("git: modes are kept - the executable bit included - and new nested folders are created") {
  Repo r;
  write_file(r / "run.sh", "#!/bin/sh\necho two\n");
  ::chmod((r / "run.sh").c_str(), 0755);
  write_file(r / "plain.txt", "two\n");
  r.commit_all("init");
  const std::string response = test::block("run.sh", {"echo two"}, {"echo TWO"}) +
                               test::block("plain.txt", {"two"}, {"TWO"}) +
                               test::block("deep/er/still/new.py", {}, {"print('new')"});
  record::RunReport rep = apply_and_commit(r.dir.path(), response);
  REQUIRE(rep.commit);
  const std::string tree = r.git({"ls-tree", "-r", "HEAD"});
  CHECK_THAT(tree, Contains("100755 blob"));
  CHECK(lines(tree).size() == 3);
  for (const std::string& l : lines(tree)) {
    if (l.ends_with("\trun.sh")) CHECK(l.starts_with("100755 "));
    if (l.ends_with("\tplain.txt")) CHECK(l.starts_with("100644 "));
    if (l.ends_with("\tdeep/er/still/new.py")) CHECK(l.starts_with("100644 "));
  }
  CHECK(r.git({"show", "HEAD:deep/er/still/new.py"}) == "print('new')\n");
  CHECK(r.status().empty());
  r.fsck();
}

TEST_CASE("git: HEAD moving between read and commit puts the commit on top, losing nothing") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  write_file(r / "u.txt", "u\n");
  r.commit_all("init");
  int calls = 0;
  editgit::Options opt;
  opt.before_update = [&] {
    if (calls++ > 0) return;  // the user commits once, while editgate is about to move the branch
    write_file(r / "u.txt", "the user's own commit\n");
    r.git({"commit", "-q", "-m", "user commit", "u.txt"});
  };
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA, opt);
  REQUIRE(rep.commit);
  CHECK(calls == 2);  // one retry
  CHECK(r.git({"log", "--format=%s", "-3"}) == "edit a.txt (1 applied)\nuser commit\ninit\n");
  CHECK(r.git({"show", "HEAD:u.txt"}) == "the user's own commit\n");
  CHECK(r.git({"show", "HEAD:a.txt"}) == "one\nTWO\n");
  CHECK(r.status().empty());
  r.fsck();
}

TEST_CASE("git: a user commit that already holds the agent's change leaves nothing to commit") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  editgit::Options opt;
  opt.before_update = [&] { r.git({"commit", "-q", "-am", "user took it all"}); };
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA, opt);
  CHECK_FALSE(rep.commit_error);
  CHECK_FALSE(rep.commit);  // the user's commit has the change; no revert-and-redo pair
  CHECK_FALSE(rep.earlier_commit);
  CHECK(r.git({"log", "--format=%s"}) == "user took it all\ninit\n");
  CHECK(r.status().empty());
}

TEST_CASE("git: writers racing on one repository all land, each on top of the others") {
  Repo r;
  constexpr int kWriters = 4, kRounds = 5;
  for (int w = 0; w < kWriters; ++w) write_file(r / ("f" + std::to_string(w) + ".txt"), "round 0\n");
  r.commit_all("init");
  std::vector<std::thread> writers;
  std::vector<int> landed(kWriters, 0);
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      const std::string file = "f" + std::to_string(w) + ".txt";
      for (int k = 1; k <= kRounds; ++k) {
        // Each writer has its own Repository: libgit2 objects are per thread.
        auto ws = editproto::Workspace::open(r.dir.str());
        auto repo = editgit::Repository::open(r.dir.str());
        if (!ws || !repo) return;
        editproto::Options opt;
        opt.dry_run = false;
        editproto::Applier applier(*ws, opt);
        for (const editproto::Block& b :
             test::parse(test::block(file, {"round " + std::to_string(k - 1)}, {"round " + std::to_string(k)})))
          applier.submit(b);
        record::RunReport report;
        report.blocks = applier.flush();
        report.session = "w" + std::to_string(w);
        record::record_edits(*repo, applier, report, "writer-" + std::to_string(w));
        if (report.commit && !report.commit_error && !report.earlier_commit) ++landed[w];
        else errors[w] = report.commit_error.value_or("earlier state committed first");
      }
    });
  for (std::thread& t : writers) t.join();
  INFO("what the writers said: " << errors[0] << " | " << errors[1] << " | " << errors[2] << " | " << errors[3]);
  CHECK(landed == std::vector<int>(kWriters, kRounds));
  for (const auto& e : test::fs::directory_iterator(r / ".git"))  // no lock or private index left behind
    CHECK_FALSE((e.path().filename().string().starts_with("index.") && e.path().filename() != "index"));
  CHECK(r.git({"rev-list", "--count", "HEAD"}) == std::to_string(1 + kWriters * kRounds) + "\n");
  for (int w = 0; w < kWriters; ++w)
    CHECK(r.git({"show", "HEAD:f" + std::to_string(w) + ".txt"}) == "round " + std::to_string(kRounds) + "\n");
  CHECK(r.status().empty());
  r.fsck();
}

TEST_CASE("git: a HEAD that never stops moving gives a conflict, naming the branch") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  write_file(r / "u.txt", "0\n");
  r.commit_all("init");
  int n = 0;
  editgit::Options opt;
  opt.max_attempts = 3;
  opt.before_update = [&] {
    write_file(r / "u.txt", std::to_string(++n) + "\n");
    r.git({"commit", "-q", "-m", "busy", "u.txt"});
  };
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA, opt);
  CHECK_FALSE(rep.commit);
  REQUIRE(rep.commit_error);
  CHECK_THAT(*rep.commit_error, Contains("conflict: cannot move refs/heads/main"));
  CHECK(r.git({"log", "-1", "--format=%s"}) == "busy\n");
  CHECK(read_file(r / "a.txt") == "one\nTWO\n");  // the edit stays on disk
  r.fsck();
}

TEST_CASE("git: a detached HEAD gets the commit and stays detached") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  const std::string main_before = r.git({"rev-parse", "main"});
  r.git({"checkout", "-q", "--detach"});
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  CHECK(r.head() == *rep.commit);
  CHECK(git(r.dir.path(), {"symbolic-ref", "-q", "HEAD"}).exit_code != 0);
  CHECK(r.git({"rev-parse", "main"}) == main_before);
}

TEST_CASE("git: a held index.lock is waited for - then a clear locked error with nothing committed") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  const std::string head = r.head();
  write_file(r / ".git/index.lock", "");
  editgit::Options opt;
  opt.lock_timeout = std::chrono::milliseconds(200);

  SECTION("held for good") {
    record::RunReport rep = apply_and_commit(r.dir.path(), kEditA, opt);
    CHECK_FALSE(rep.commit);
    REQUIRE(rep.commit_error);
    CHECK_THAT(*rep.commit_error, Contains("locked: "));
    CHECK_THAT(*rep.commit_error, Contains(".git/index.lock is held by another git process (waited 200 ms)"));
    CHECK(r.head() == head);
    CHECK(read_file(r / "a.txt") == "one\nTWO\n");
  }
  SECTION("released while waiting") {
    opt.lock_timeout = std::chrono::milliseconds(5000);
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      test::fs::remove(r / ".git/index.lock");
    });
    record::RunReport rep = apply_and_commit(r.dir.path(), kEditA, opt);
    release.join();
    REQUIRE(rep.commit);
    CHECK_FALSE(rep.commit_error);
    CHECK(r.status().empty());
  }
}

TEST_CASE("git: untracked files ignored by .gitignore are written but not committed") {
  Repo r;
  write_file(r / ".gitignore", "*.log\n");
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA + test::block("out.log", {}, {"log line"}));
  REQUIRE(rep.commit);
  REQUIRE(rep.files_not_committed.size() == 1);
  CHECK(rep.files_not_committed[0].path == "out.log");
  CHECK(rep.files_not_committed[0].why == "untracked and ignored by .gitignore");
  CHECK(read_file(r / "out.log") == "log line\n");
  CHECK(r.git({"show", "--format=", "--name-only", "HEAD"}) == "a.txt\n");
  CHECK(r.status().empty());
}

TEST_CASE("git: a file inside a submodule is written but left to the submodule's own history") {
  Repo inner;
  write_file(inner / "lib.c", "int two;\n");
  inner.commit_all("inner init");
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  r.git({"-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.dir.str(), "vendor/lib"});
  r.git({"commit", "-q", "-m", "add submodule"});
  const std::string gitlink = r.git({"ls-tree", "HEAD", "vendor/lib"});

  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA + test::block("vendor/lib/lib.c", {"int two;"}, {"int TWO;"}));
  REQUIRE(rep.commit);
  REQUIRE(rep.files_not_committed.size() == 1);
  CHECK(rep.files_not_committed[0].path == "vendor/lib/lib.c");
  CHECK(rep.files_not_committed[0].why == "inside submodule vendor/lib; commit it in that repository");
  CHECK(read_file(r / "vendor/lib/lib.c") == "int TWO;\n");
  CHECK(r.git({"ls-tree", "HEAD", "vendor/lib"}) == gitlink);  // still a submodule
  CHECK(r.git({"show", "--format=", "--name-only", "HEAD"}) == "a.txt\n");
  CHECK(r.status() == " M vendor/lib\n");  // the submodule has a change of its own
  r.fsck();
}

TEST_CASE("git: a workspace in a subfolder commits under that folder") {
  Repo r;
  write_file(r / "top.txt", "top\n");
  write_file(r / "sub/a.txt", "one\ntwo\n");
  r.commit_all("init");
  record::RunReport rep = apply_and_commit(r / "sub", kEditA);
  REQUIRE(rep.commit);
  CHECK(r.git({"show", "--format=", "--name-only", "HEAD"}) == "sub/a.txt\n");
  CHECK(r.git({"show", "HEAD:sub/a.txt"}) == "one\nTWO\n");
  CHECK(r.status().empty());
}

TEST_CASE("git: .gitattributes line-ending filters apply as git add would") {
  Repo r;
  write_file(r / ".gitattributes", "*.txt text eol=crlf\n");
  write_file(r / "a.txt", "one\r\ntwo\r\n");
  r.commit_all("init");
  CHECK(r.git({"cat-file", "-p", "HEAD:a.txt"}) == "one\ntwo\n");  // git stores LF
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA);
  REQUIRE(rep.commit);
  CHECK_FALSE(rep.earlier_commit);  // the CRLF file on disk is what HEAD holds
  CHECK(read_file(r / "a.txt") == "one\r\nTWO\r\n");
  CHECK(r.git({"cat-file", "-p", "HEAD:a.txt"}) == "one\nTWO\n");
  CHECK(r.status().empty());
}

TEST_CASE("git: the message has a summary, a line per block and trailers git can read") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  write_file(r / "b.txt", "b\n");
  r.commit_all("init");
  record::RunReport rep = apply_and_commit(r.dir.path(), kEditA + test::block("b.txt", {"nope"}, {"x"}) +
                                          test::block("c.txt", {}, {"new"}), {}, "claude-3");
  REQUIRE(rep.commit);
  const std::string msg = r.git({"log", "-1", "--format=%B"});
  CHECK(lines(msg)[0] == "edit a.txt, c.txt (2 applied, 1 failed)");
  CHECK_THAT(msg, Contains("\nblock 1 applied: a.txt:2\nblock 2 failed (anchor_not_found): b.txt"));
  CHECK_THAT(msg, Contains("\nblock 3 applied: c.txt:1\n"));
  CHECK(r.git({"log", "-1", "--format=%(trailers:key=Editgate-Agent,valueonly)"}) == "claude-3\n\n");
  CHECK(r.git({"log", "-1", "--format=%(trailers:key=Editgate-Session,valueonly)"}) == "s-1\n\n");

  auto repo = editgit::Repository::open(r.dir.str(), {}, false);
  REQUIRE(repo.has_value());
  auto found = repo->history([](const editgit::CommitInfo& c) { return record::read_entry(c).has_value(); }, 10);
  REQUIRE(found.has_value());
  REQUIRE(found->size() == 1);
  auto e = record::read_entry(found->front());
  REQUIRE(e);
  CHECK(e->kind == "edit");
  CHECK(e->agent == "claude-3");
  REQUIRE(e->blocks.size() == 3);
  CHECK(e->blocks[1].index == 1);
  CHECK(e->blocks[1].status == "failed");
  CHECK(e->blocks[1].reason == "anchor_not_found");
  CHECK(e->blocks[1].path == "b.txt");
  CHECK(e->blocks[2].line == std::optional<std::size_t>(1));
}

TEST_CASE("git: undo reverts the newest edit not undone yet, level by level") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  REQUIRE(apply_and_commit(r.dir.path(), kEditA).commit);
  REQUIRE(apply_and_commit(r.dir.path(), test::block("a.txt", {"one"}, {"ONE"}) + test::block("n/new.txt", {}, {"x"})).commit);
  auto ws = editproto::Workspace::open(r.dir.str());
  REQUIRE(ws.has_value());
  auto undo = [&] {
    auto repo = editgit::Repository::open(r.dir.str(), {}, false);
    REQUIRE(repo.has_value());
    return record::undo_last(*ws, *repo, std::nullopt, "s-undo");
  };

  auto first = undo();
  REQUIRE(first.has_value());
  CHECK(read_file(r / "a.txt") == "one\nTWO\n");
  CHECK_FALSE(test::fs::exists(r / "n/new.txt"));
  CHECK(r.status().empty());
  CHECK(r.git({"log", "-1", "--format=%an|%(trailers:key=Editgate-Undo,valueonly)"}) ==
        "Repo User|" + first->reverted + "\n\n");

  auto second = undo();
  REQUIRE(second.has_value());
  CHECK(read_file(r / "a.txt") == "one\ntwo\n");
  CHECK(r.status().empty());

  auto third = undo();
  REQUIRE_FALSE(third.has_value());
  CHECK(third.error().code == editgit::Error::not_found);
  CHECK(r.git({"rev-list", "--count", "HEAD"}) == "5\n");
  r.fsck();
}

TEST_CASE("git: undo is refused - and touches nothing - when a file changed since") {
  Repo r;
  write_file(r / "a.txt", "one\ntwo\n");
  r.commit_all("init");
  REQUIRE(apply_and_commit(r.dir.path(), kEditA).commit);
  auto ws = editproto::Workspace::open(r.dir.str());
  REQUIRE(ws.has_value());
  auto undo = [&] {
    auto repo = editgit::Repository::open(r.dir.str(), {}, false);
    REQUIRE(repo.has_value());
    return record::undo_last(*ws, *repo, std::string("claude"), "s-undo");
  };
  const std::string head = r.head();

  SECTION("on disk") {
    write_file(r / "a.txt", "one\nTWO\nmine\n");
    auto u = undo();
    REQUIRE_FALSE(u.has_value());
    CHECK(u.error().code == editgit::Error::conflict);
    CHECK_THAT(u.error().message, Contains("a.txt has uncommitted changes"));
    CHECK(read_file(r / "a.txt") == "one\nTWO\nmine\n");
  }
  SECTION("in a later commit") {
    write_file(r / "a.txt", "one\nTWO\nmine\n");
    r.commit_all("mine");
    auto u = undo();
    REQUIRE_FALSE(u.has_value());
    CHECK(u.error().code == editgit::Error::conflict);
    CHECK_THAT(u.error().message, Contains("a.txt changed in a later commit"));
    CHECK(read_file(r / "a.txt") == "one\nTWO\nmine\n");
    CHECK(r.git({"rev-list", "--count", "HEAD"}) == "3\n");
    return;
  }
  SECTION("git mid-merge: refused before a file is written back") {
    write_file(r / ".git/MERGE_HEAD", head + "\n");
    auto u = undo();
    REQUIRE_FALSE(u.has_value());
    CHECK(u.error().code == editgit::Error::conflict);
    CHECK(read_file(r / "a.txt") == "one\nTWO\n");
  }
  CHECK(r.head() == head);
}

TEST_CASE("git: what git holds of a file - HEAD's text as checked out, and whether a version is a blob it has") {
  Repo r;
  write_file(r / ".gitattributes", "*.md text eol=crlf\n");
  write_file(r / "sub/log.md", "one\r\ntwo\r\n");
  r.commit_all("init");
  auto repo = editgit::Repository::open((r / "sub").string(), {}, false);
  REQUIRE(repo.has_value());
  // Paths are the workspace's; text as a checkout writes it (CRLF here), hashed as git add stores it.
  auto head = repo->head_text("log.md");
  REQUIRE(head.has_value());
  REQUIRE(head->has_value());
  CHECK(**head == "one\r\ntwo\r\n");
  CHECK(repo->holds_blob("log.md", "one\r\ntwo\r\n").value());
  CHECK_FALSE(repo->holds_blob("log.md", "one\r\ntwo\r\nthree\r\n").value());
  CHECK_FALSE(repo->head_text("missing.md").value().has_value());
  // A version only another branch has, fetched objects included: held all the same.
  r.git({"checkout", "-q", "-b", "other"});
  write_file(r / "sub/log.md", "one\r\ntwo\r\nthree\r\n");
  r.commit_all("other");
  r.git({"checkout", "-q", "main"});
  CHECK(repo->holds_blob("log.md", "one\r\ntwo\r\nthree\r\n").value());
  CHECK(**repo->head_text("log.md") == "one\r\ntwo\r\n");
  // No commit yet: HEAD has no file.
  Repo empty;
  auto none = editgit::Repository::open(empty.dir.str(), {}, false);
  REQUIRE(none.has_value());
  CHECK_FALSE(none->head_text("log.md").value().has_value());
}
