// The index a commit leaves (git/index_image.cpp splices it): checked with
// the git command line, which reads it independently — status, fsck (which
// verifies the checksum), ls-files against ls-tree, and write-tree, which
// trusts the cache-tree extension for every folder it says is valid — and
// with libgit2, in every index format version git writes.
#include "support.hpp"

#include "git/index.hpp"
#include "git/repository.hpp"

#include <catch2/catch.hpp>
#include <git2.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

using test::git_ok;
using test::TempDir;
using test::write_file;

namespace {

editgit::Options deferring() {
  editgit::Options o;
  o.defer_index = true;
  return o;
}

struct Repo {
  TempDir dir;
  Repo() {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    git_ok(dir.path(), {"config", "user.name", "Repo User"});
    git_ok(dir.path(), {"config", "user.email", "user@example.com"});
  }
  std::string git(std::vector<std::string> args) const { return git_ok(dir.path(), std::move(args)); }
};

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t nl = s.find('\n', at);
    out.push_back(s.substr(at, nl - at));
    at = nl == std::string::npos ? s.size() : nl + 1;
  }
  return out;
}

// `after` as the new content of `path` (nullopt: deleted), as the edit engine
// leaves it on disk, committed through the git layer.
void commit(editgit::Repository& repo, const Repo& r, const std::string& path, const std::string& before,
            const std::optional<std::string>& after, bool quiet = true) {
  if (after)
    write_file(r.dir / path, *after);
  else
    test::fs::remove(r.dir / path);
  editgit::CommitRequest req;
  editgit::Change c{path, before.empty() ? std::nullopt : std::optional<std::string_view>(before), {}, !after};
  if (after) c.after.push_back(*after);
  req.changes.push_back(c);
  req.author = {"agent", "agent@example.com"};
  req.message = "edit " + path + "\n";
  auto res = repo.commit(req);
  REQUIRE(res.has_value());
  REQUIRE(res->id);
  if (quiet) REQUIRE(res->warning.empty());
}

// Everything a reader of the index can check, before anything rewrites it
// (git status would, with optional locks; write-tree does when it fills the
// cache-tree, so it comes last).
void check_index(const Repo& r) {
  git_index* index = nullptr;
  REQUIRE(git_index_open(&index, (r.dir / ".git/index").c_str()) == 0);
  CHECK(git_index_entrycount(index) == lines(r.git({"ls-files"})).size());
  git_index_free(index);
  r.git({"fsck", "--strict", "--no-dangling"});
  // The staged entries are exactly HEAD's files, with their modes and ids.
  std::string staged;
  for (const std::string& line : lines(r.git({"ls-files", "--stage"})))  // "mode id stage\tpath"
    staged += line.substr(0, 47) + " " + line.substr(line.find('\t') + 1) + "\n";
  std::string head;
  for (const std::string& line : lines(r.git({"ls-tree", "-r", "HEAD"})))  // "mode blob id\tpath"
    head += line.substr(0, 7) + line.substr(12, 40) + " " + line.substr(line.find('\t') + 1) + "\n";
  CHECK(staged == head);
  CHECK(r.git({"--no-optional-locks", "status", "--porcelain"}).empty());
  // write-tree takes the cached tree of every folder the index still calls valid.
  CHECK(r.git({"write-tree"}) == r.git({"rev-parse", "HEAD^{tree}"}));
}

// A repository of 3 folders of 4 files and top.txt, committed by git.
void populate(const Repo& r) {
  for (int d = 0; d < 3; ++d)
    for (int f = 0; f < 4; ++f)
      write_file(r.dir / ("d" + std::to_string(d) + "/s/f" + std::to_string(f) + ".txt"), "file " + std::to_string(f) + "\n");
  write_file(r.dir / "top.txt", "top\n");
  git_ok(r.dir.path(), {"add", "-A"});
  git_ok(r.dir.path(), {"commit", "-q", "-m", "init"});
}

std::string porcelain(const Repo& r) { return r.git({"--no-optional-locks", "status", "--porcelain"}); }

}  // namespace

TEST_CASE("git index: commits keep the index whole and current in every format version") {
  const std::string version = GENERATE("2", "3", "4");
  Repo r;
  populate(r);
  if (version == "3") {
    write_file(r.dir / "d2/intent.txt", "intent\n");  // an intent-to-add entry has the extended flags
    r.git({"add", "-N", "d2/intent.txt"});
  }
  r.git({"update-index", "--index-version", version});
  r.git({"write-tree"});  // the cache-tree extension, valid for every folder
  git_libgit2_init();
  auto repo = editgit::Repository::open(r.dir.str(), {}, false);
  REQUIRE(repo.has_value());

  auto readable = [&] {  // by git, checksum included, and by libgit2
    r.git({"fsck", "--no-dangling"});
    git_index* index = nullptr;
    CHECK(git_index_open(&index, (r.dir / ".git/index").c_str()) == 0);
    git_index_free(index);
  };
  commit(*repo, r, "d1/s/f2.txt", "file 2\n", "changed\n");   // an entry replaced
  readable();
  commit(*repo, r, "d0/new/deeper/n.txt", "", "new\n");       // a new entry in new folders
  readable();
  commit(*repo, r, "d2/s/f0.txt", "file 0\n", std::nullopt);  // an entry removed
  readable();
  commit(*repo, r, "a.txt", "", "first in the index\n");      // before every other entry
  commit(*repo, r, "zz/last.txt", "", "last\n");              // after every other entry
  readable();
  if (version == "3") commit(*repo, r, "d2/intent.txt", "", "intent\n");  // replaces the intent-to-add entry
  // The version stays what the repository chose.
  const std::string raw = test::read_file(r.dir / ".git/index");
  CHECK(static_cast<int>(raw[7]) == std::stoi(version));
  check_index(r);
  git_libgit2_shutdown();
}

TEST_CASE("git index: a file staged by git between two commits stays staged") {
  Repo r;
  write_file(r.dir / "a.txt", "a\n");
  write_file(r.dir / "b.txt", "b\n");
  git_ok(r.dir.path(), {"add", "-A"});
  git_ok(r.dir.path(), {"commit", "-q", "-m", "init"});
  git_libgit2_init();
  auto repo = editgit::Repository::open(r.dir.str(), {}, false);
  REQUIRE(repo.has_value());
  commit(*repo, r, "a.txt", "a\n", "a 1\n");  // the index is now in memory
  write_file(r.dir / "b.txt", "b staged\n");
  r.git({"add", "b.txt"});                    // another program replaces the index
  commit(*repo, r, "a.txt", "a 1\n", "a 2\n");
  CHECK(r.git({"status", "--porcelain"}) == "M  b.txt\n");
  CHECK(r.git({"show", ":b.txt"}) == "b staged\n");
  r.git({"fsck", "--strict", "--no-dangling"});
  git_libgit2_shutdown();
}

TEST_CASE("git index: deferred commits leave the index alone until one write takes them all") {
  Repo r;
  populate(r);
  git_libgit2_init();
  auto repo = editgit::Repository::open(r.dir.str(), deferring(), false);
  REQUIRE(repo.has_value());
  const std::string before = test::read_file(r.dir / ".git/index");
  commit(*repo, r, "d1/s/f2.txt", "file 2\n", "changed\n");    // in the middle
  commit(*repo, r, "a.txt", "", "first in the index\n");        // added, before every entry
  commit(*repo, r, "zz/last.txt", "", "last\n");                // added, after every entry
  commit(*repo, r, "d2/s/f0.txt", "file 0\n", std::nullopt);   // removed
  commit(*repo, r, "d0/s/f0.txt", "file 0\n", "start\n");      // the first entry of the old index
  CHECK(repo->index_deferred() == 5);
  CHECK(test::read_file(r.dir / ".git/index") == before);
  // Meanwhile git sees the commits, and the index as it was: the window.
  CHECK(porcelain(r) ==
        "D  a.txt\nMM d0/s/f0.txt\nMM d1/s/f2.txt\nAD d2/s/f0.txt\nD  zz/last.txt\n?? a.txt\n?? zz/\n");
  r.git({"fsck", "--strict", "--no-dangling"});
  REQUIRE(repo->settle_index().has_value());
  CHECK(repo->index_deferred() == 0);
  check_index(r);
  git_libgit2_shutdown();
}

TEST_CASE("git index: a deferred entry is written only while HEAD holds what was committed") {
  Repo r;
  populate(r);
  git_libgit2_init();
  auto repo = editgit::Repository::open(r.dir.str(), deferring(), false);
  REQUIRE(repo.has_value());
  const std::string old_id = r.git({"rev-parse", "HEAD:top.txt"});

  // The user takes the commit back before the index is written: staging the
  // agent's text then would show a change nobody made.
  commit(*repo, r, "top.txt", "top\n", "agent's\n");
  r.git({"reset", "-q", "--hard", "HEAD~1"});
  REQUIRE(repo->settle_index().has_value());
  CHECK(r.git({"rev-parse", ":top.txt"}) == old_id);
  CHECK(porcelain(r).empty());

  // In the middle of a merge the index is the merge's: nothing is written.
  commit(*repo, r, "top.txt", "top\n", "agent's again\n");
  write_file(r.dir / ".git/MERGE_HEAD", r.git({"rev-parse", "HEAD"}));
  REQUIRE(repo->settle_index().has_value());
  CHECK(r.git({"rev-parse", ":top.txt"}) == old_id);
  CHECK(repo->index_deferred() == 0);
  test::fs::remove(r.dir / ".git/MERGE_HEAD");

  // The next commit of the path writes it, and one of another path is kept
  // when its blob is HEAD's.
  commit(*repo, r, "d0/s/f1.txt", "file 1\n", "other\n");
  commit(*repo, r, "top.txt", "agent's again\n", "third\n");
  REQUIRE(repo->settle_index().has_value());
  check_index(r);
  git_libgit2_shutdown();
}

TEST_CASE("git index: a Repository destroyed with deferred entries writes them") {
  Repo r;
  populate(r);
  git_libgit2_init();
  {
    auto repo = editgit::Repository::open(r.dir.str(), deferring(), false);
    REQUIRE(repo.has_value());
    commit(*repo, r, "top.txt", "top\n", "agent's\n");
    CHECK(!porcelain(r).empty());
  }
  check_index(r);
  git_libgit2_shutdown();
}

// git compares by content an entry whose mtime is not before the index
// file's; a file rewritten within one tick of the file system's clock keeps
// its stat data, so the index written with a racy entry gets that entry's
// mtime, and keeps it while it holds the entry.
TEST_CASE("git index: an entry written in its file's tick stays compared by content") {
  Repo r;
  populate(r);
  git_libgit2_init();
  const std::string gitdir = (r.dir / ".git/").string();
  const auto then = std::chrono::system_clock::now() - std::chrono::seconds(30);
  const struct timespec t = {std::chrono::system_clock::to_time_t(then), 123456789};
  auto racy_edit = [&](const std::string& path, const std::string& text, bool racy) {
    write_file(r.dir / path, text);
    const struct timespec times[2] = {t, t};
    REQUIRE(::utimensat(AT_FDCWD, (r.dir / path).c_str(), times, 0) == 0);
    // The entry as libgit2 stages it (stat data and blob), in memory only.
    git_repository* repo = nullptr;
    REQUIRE(git_repository_open(&repo, r.dir.str().c_str()) == 0);
    git_index* staged = nullptr;
    REQUIRE(git_repository_index(&staged, repo) == 0);
    REQUIRE(git_index_add_bypath(staged, path.c_str()) == 0);
    const git_index_entry e = *git_index_get_bypath(staged, path.c_str(), 0);
    git_index_free(staged);
    git_repository_free(repo);
    return editgit::detail::LaterEdit{{path, e}, e.id, racy};
  };
  auto index_mtime = [&] {
    struct stat st;
    REQUIRE(::stat((r.dir / ".git/index").c_str(), &st) == 0);
    return st.st_mtim;
  };
  editgit::detail::IndexFile index(gitdir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);

  index.defer({racy_edit("top.txt", "abcd\n", true)});
  REQUIRE(index.update(deadline, {}).has_value());
  CHECK(index_mtime().tv_sec == t.tv_sec);
  CHECK(index_mtime().tv_nsec == t.tv_nsec);
  // A later write of another entry keeps the index's mtime where it was.
  index.defer({racy_edit("d0/s/f0.txt", "file 0\n", false)});
  REQUIRE(index.update(deadline, {}).has_value());
  CHECK(index_mtime().tv_nsec == t.tv_nsec);
  // The same size, the same mtime, ctime not trusted: only the content tells
  // (staged: the entry's text against HEAD's; changed: the file's against it).
  write_file(r.dir / "top.txt", "wxyz\n");
  const struct timespec times[2] = {t, t};
  REQUIRE(::utimensat(AT_FDCWD, (r.dir / "top.txt").c_str(), times, 0) == 0);
  CHECK(r.git({"-c", "core.trustctime=false", "--no-optional-locks", "status", "--porcelain", "top.txt"}) ==
        "MM top.txt\n");
  git_libgit2_shutdown();
}

// A commit killed between writing the new index and renaming it over the old
// leaves index.lock and its temp file; one killed with its entries deferred
// leaves the index before the commit. Either way git and libgit2 read the
// repository, the commit and the files are whole, and the next commit
// clears what the dead process held.
TEST_CASE("git index: a commit killed before the index is in place leaves a repository git reads") {
  const bool deferred = GENERATE(false, true);
  Repo r;
  populate(r);
  git_libgit2_init();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    editgit::Options opt;
    opt.defer_index = deferred;
    opt.before_index_rename = [] { ::_exit(9); };
    auto repo = editgit::Repository::open(r.dir.str(), opt, false);
    if (!repo) ::_exit(2);
    write_file(r.dir / "top.txt", "agent's\n");
    editgit::CommitRequest req;
    req.changes.push_back({"top.txt", std::string_view("top\n"), {std::string_view("agent's\n")}, false});
    req.author = {"agent", "agent@example.com"};
    req.message = "edit top.txt\n";
    auto res = repo->commit(req);
    ::_exit(res && res->id ? 0 : 3);  // with deferred entries: killed before the write
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == (deferred ? 0 : 9));
  CHECK(test::fs::exists(r.dir / ".git/index.lock") == !deferred);
  CHECK(r.git({"show", "HEAD:top.txt"}) == "agent's\n");
  CHECK(test::read_file(r.dir / "top.txt") == "agent's\n");
  r.git({"fsck", "--strict", "--no-dangling"});
  CHECK(porcelain(r) == "MM top.txt\n");
  git_index* raw = nullptr;
  CHECK(git_index_open(&raw, (r.dir / ".git/index").c_str()) == 0);
  git_index_free(raw);

  auto repo = editgit::Repository::open(r.dir.str(), {}, false);
  REQUIRE(repo.has_value());
  commit(*repo, r, "top.txt", "agent's\n", "next\n");
  CHECK(!test::fs::exists(r.dir / ".git/index.lock"));
  std::size_t temps = 0;
  for (const auto& e : test::fs::directory_iterator(r.dir / ".git"))
    if (e.path().filename().string().starts_with("index.editgate-")) ++temps;
  CHECK(temps == 0);
  check_index(r);
  git_libgit2_shutdown();
}
