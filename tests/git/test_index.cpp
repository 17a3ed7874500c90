// The index a commit leaves (git/index_image.cpp splices it): checked with
// the git command line, which reads it independently — status, fsck (which
// verifies the checksum), ls-files against ls-tree, and write-tree, which
// trusts the cache-tree extension for every folder it says is valid — and
// with libgit2, in every index format version git writes.
#include "support.hpp"

#include "git/repository.hpp"

#include <catch2/catch.hpp>
#include <git2.h>

#include <string>
#include <vector>

using test::git_ok;
using test::TempDir;
using test::write_file;

namespace {

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
            const std::optional<std::string>& after) {
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
  REQUIRE(res->warning.empty());
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

}  // namespace

TEST_CASE("git index: commits keep the index whole and current in every format version") {
  const std::string version = GENERATE("2", "3", "4");
  Repo r;
  for (int d = 0; d < 3; ++d)
    for (int f = 0; f < 4; ++f)
      write_file(r.dir / ("d" + std::to_string(d) + "/s/f" + std::to_string(f) + ".txt"), "file " + std::to_string(f) + "\n");
  write_file(r.dir / "top.txt", "top\n");
  git_ok(r.dir.path(), {"add", "-A"});
  git_ok(r.dir.path(), {"commit", "-q", "-m", "init"});
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
