// A commit's patch for the show op (git/diff.cpp) and its JSON
// (record/commit_show.cpp): commits made with the git command line, read
// back through the git layer.
#include "support.hpp"

#include "editproto/unicode.hpp"
#include "git/repository.hpp"
#include "record/commit_show.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <map>

using test::git_ok;
using test::TempDir;
using test::write_file;
namespace json = boost::json;

namespace {

struct Repo {
  TempDir dir;
  Repo() { git_ok(dir.path(), {"init", "-q", "-b", "main"}); }
  std::string commit_all(const std::string& message) {
    git_ok(dir.path(), {"add", "-A"});
    git_ok(dir.path(), {"commit", "-q", "-m", message});
    std::string id = git_ok(dir.path(), {"rev-parse", "HEAD"});
    id.pop_back();
    return id;
  }
  editgit::Repository open() const {
    auto r = editgit::Repository::open(dir.str(), {}, false);
    REQUIRE(r.has_value());
    return std::move(*r);
  }
};

editgit::CommitPatch patch_of(const Repo& repo, const std::string& id, editgit::DiffBounds bounds = {}) {
  auto p = repo.open().patch(id, bounds);
  REQUIRE(p.has_value());
  return std::move(*p);
}

const editgit::FilePatch& file(const editgit::CommitPatch& p, const std::string& path) {
  for (const editgit::FilePatch& f : p.files)
    if (f.path == path) return f;
  FAIL("no file " << path);
  throw;
}

// "+3:new text" per line, for comparing a hunk at a glance.
std::vector<std::string> shown(const editgit::DiffHunk& h) {
  std::vector<std::string> out;
  for (const editgit::DiffLine& l : h.lines)
    out.push_back(std::string(1, l.type) + (l.old_line ? std::to_string(*l.old_line) : "-") + "/" +
                  (l.new_line ? std::to_string(*l.new_line) : "-") + ":" + l.text);
  return out;
}

}  // namespace

TEST_CASE("a root commit's files are added against the empty tree", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "a.txt", "one\ntwo\n");
  const std::string root = repo.commit_all("root");
  const editgit::CommitPatch p = patch_of(repo, root);
  REQUIRE(p.files.size() == 1);
  const editgit::FilePatch& f = p.files[0];
  CHECK(f.path == "a.txt");
  CHECK(f.old_path.empty());
  CHECK(f.status == editgit::FileStatus::added);
  CHECK_FALSE(f.binary);
  REQUIRE(f.hunks.size() == 1);
  CHECK(f.hunks[0].header == "@@ -0,0 +1,2 @@");
  CHECK(shown(f.hunks[0]) == std::vector<std::string>{"+-/1:one", "+-/2:two"});
  CHECK(p.files_cut == 0);
  CHECK_FALSE(p.bytes_cut);
}

TEST_CASE("a modified file's hunks number both sides, and a deleted file lists its old lines", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
  write_file(repo.dir / "gone.txt", "bye\n");
  repo.commit_all("start");
  write_file(repo.dir / "a.txt", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n10\n");
  std::filesystem::remove(repo.dir / "gone.txt");
  const std::string id = repo.commit_all("change");
  const editgit::CommitPatch p = patch_of(repo, id);
  REQUIRE(p.files.size() == 2);
  const editgit::FilePatch& a = file(p, "a.txt");
  CHECK(a.status == editgit::FileStatus::modified);
  CHECK(a.old_path == "a.txt");
  REQUIRE(a.hunks.size() == 1);
  CHECK(a.hunks[0].header == "@@ -2,7 +2,7 @@");
  CHECK(shown(a.hunks[0]) == std::vector<std::string>{" 2/2:2", " 3/3:3", " 4/4:4", "-5/-:5", "+-/5:FIVE", " 6/6:6",
                                                      " 7/7:7", " 8/8:8"});
  const editgit::FilePatch& gone = file(p, "gone.txt");
  CHECK(gone.status == editgit::FileStatus::deleted);
  CHECK(gone.old_path == "gone.txt");
  REQUIRE(gone.hunks.size() == 1);
  CHECK(shown(gone.hunks[0]) == std::vector<std::string>{"-1/-:bye"});
}

TEST_CASE("a moved file is one renamed file with its old path", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "old.txt", "a\nb\nc\nd\ne\nf\n");
  repo.commit_all("start");
  git_ok(repo.dir.path(), {"mv", "old.txt", "new.txt"});
  const std::string id = repo.commit_all("move");
  const editgit::CommitPatch p = patch_of(repo, id);
  REQUIRE(p.files.size() == 1);
  CHECK(p.files[0].status == editgit::FileStatus::renamed);
  CHECK(p.files[0].path == "new.txt");
  CHECK(p.files[0].old_path == "old.txt");
  CHECK(p.files[0].hunks.empty());
}

TEST_CASE("a binary file is flagged and its bytes never listed", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "blob.bin", std::string("\x00\x01\x02zip\n", 7));
  const std::string id = repo.commit_all("binary");
  const editgit::CommitPatch p = patch_of(repo, id);
  REQUIRE(p.files.size() == 1);
  CHECK(p.files[0].binary);
  CHECK(p.files[0].hunks.empty());
  const json::object o = record::show_json(repo.open().find_commit(id).value(), p, {});
  CHECK(o.at("files").at(0).at("binary") == true);
  CHECK(o.at("files").at(0).at("hunks").as_array().empty());
}

TEST_CASE("invalid UTF-8 in a line reaches the JSON as valid UTF-8", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "latin1.txt", "caf\xe9\n");
  const std::string id = repo.commit_all("latin-1");
  const editgit::CommitPatch p = patch_of(repo, id);
  REQUIRE(p.files.size() == 1);
  REQUIRE_FALSE(p.files[0].binary);
  CHECK(p.files[0].hunks.at(0).lines.at(0).text == "caf\xe9");  // the git layer keeps the bytes
  const json::object o = record::show_json(repo.open().find_commit(id).value(), p, {});
  const std::string text(o.at("files").at(0).at("hunks").at(0).at("lines").at(0).at("text").as_string());
  CHECK(editproto::unicode::find_invalid_utf8(text) == std::string::npos);
  CHECK(text == "caf\xef\xbf\xbd");  // U+FFFD where the byte was
  // The whole reply serializes: boost::json would refuse nothing, but a browser's parser would.
  CHECK(editproto::unicode::find_invalid_utf8(json::serialize(o)) == std::string::npos);
}

TEST_CASE("the bounds cut files, lines and bytes and say so", "[unit][git][diff]") {
  Repo repo;
  std::string many;
  for (int i = 1; i <= 50; ++i) many += "line " + std::to_string(i) + "\n";
  for (const char* f : {"a.txt", "b.txt", "c.txt"}) write_file(repo.dir / f, many);
  const std::string id = repo.commit_all("three files of 50 lines");

  editgit::DiffBounds files;
  files.max_files = 2;
  editgit::CommitPatch p = patch_of(repo, id, files);
  CHECK(p.files.size() == 2);
  CHECK(p.files_cut == 1);
  CHECK_FALSE(p.bytes_cut);
  json::object o = record::show_json(repo.open().find_commit(id).value(), p, files);
  CHECK(o.at("cut").at("files") == 1);
  CHECK(o.at("cut").at("limits").at("files") == 2);

  editgit::DiffBounds lines;
  lines.max_lines_per_file = 10;
  p = patch_of(repo, id, lines);
  REQUIRE(p.files.size() == 3);
  for (const editgit::FilePatch& f : p.files) {
    CHECK(f.hunks.at(0).lines.size() == 10);
    CHECK(f.lines_cut == 40);
  }
  o = record::show_json(repo.open().find_commit(id).value(), p, lines);
  CHECK(o.at("cut").at("lines") == 120);

  editgit::DiffBounds bytes;
  bytes.max_bytes = 60 * 60;  // about 60 lines with their JSON
  p = patch_of(repo, id, bytes);
  CHECK(p.bytes_cut);
  std::size_t listed = 0;
  for (const editgit::FilePatch& f : p.files)
    for (const editgit::DiffHunk& h : f.hunks) listed += h.lines.size();
  CHECK(listed < 70);
  CHECK(listed > 50);
  CHECK(p.files.size() + p.files_cut == 3);
  CHECK(p.files_cut == 1);

  // Within the bounds nothing is cut, and the JSON says null.
  p = patch_of(repo, id);
  CHECK(record::show_json(repo.open().find_commit(id).value(), p, {}).at("cut").is_null());
}

TEST_CASE("a commit is found by a prefix, and not hex, unknown and ambiguous prefixes are named", "[unit][git][diff]") {
  Repo repo;
  write_file(repo.dir / "a.txt", "a\n");
  const std::string id = repo.commit_all("one");
  editgit::Repository r = repo.open();
  auto found = r.find_commit(id.substr(0, 7));
  REQUIRE(found.has_value());
  CHECK(found->id == id);
  CHECK(found->summary == "one");
  CHECK(r.find_commit("zzzzzzz").error().code == editgit::Error::invalid);
  CHECK(r.find_commit(id.substr(0, 7) == "0000000" ? "1111111" : "0000000").error().code ==
        editgit::Error::not_found);
  // The tree is an object but not a commit.
  std::string tree = git_ok(repo.dir.path(), {"rev-parse", "HEAD^{tree}"});
  CHECK(r.find_commit(tree.substr(0, 40)).error().code == editgit::Error::not_found);

  // Enough objects that two share their first 5 hex digits (the contents are
  // fixed, so the ids are the same at every run).
  std::string paths;
  for (int i = 0; i < 3000; ++i) {
    const auto p = repo.dir / ("o" + std::to_string(i));
    write_file(p, "object " + std::to_string(i) + "\n");
    paths += p.string() + "\n";
  }
  const test::Proc hashed = test::run({"git", "-C", repo.dir.str(), "hash-object", "-w", "--stdin-paths"}, paths);
  REQUIRE(hashed.exit_code == 0);
  std::map<std::string, int> prefixes;
  std::string shared;
  std::istringstream ids(hashed.out);
  for (std::string line; std::getline(ids, line);)
    if (++prefixes[line.substr(0, 5)] == 2) shared = line.substr(0, 5);
  REQUIRE_FALSE(shared.empty());
  CHECK(r.find_commit(shared).error().code == editgit::Error::invalid);
}
