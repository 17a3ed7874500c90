// Path safety with real files and symlinks in a temp dir: nothing outside
// the root is read or written, and .git/ is never touched.
#include "support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

using Catch::Contains;
using editproto::Reason;
using editproto::Status;
using test::apply_response;
using test::block;
using test::read_file;
using test::TempDir;
using test::write_file;

namespace {
void symlink_to(const std::string& target, const test::fs::path& link) {
  test::fs::create_directories(link.parent_path());
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
}
}  // namespace

TEST_CASE("normalize: separators / dot segments / absolute paths / NUL / .git") {
  TempDir d;
  auto ws = editproto::Workspace::open(d.str());
  REQUIRE(ws.has_value());
  CHECK(ws->normalize("src\\win\\a.py").value() == "src/win/a.py");
  CHECK(ws->normalize("./src//a/../b.py").value() == "src/b.py");
  for (const char* bad : {"/etc/passwd", "C:\\Windows\\x.txt", "~/x", "../x", "a/../../x", "\\\\server\\share\\x", "."}) {
    auto r = ws->normalize(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().reason == Reason::path_escape);
  }
  auto nul = ws->normalize(std::string("a\0b", 3));
  REQUIRE_FALSE(nul.has_value());
  CHECK(nul.error().reason == Reason::path_escape);
  for (const char* git : {".git/config", "sub/.git/hooks/pre-commit", ".GIT/HEAD", ".git/editgate/inbox/x.md"}) {
    auto r = ws->normalize(git);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().reason == Reason::protected_path);
  }
  // editgate keeps nothing in the working tree: .editgate/ is a folder like any other.
  CHECK(ws->normalize(".editgate/notes.md").has_value());
}

TEST_CASE("path escapes are skipped and nothing outside the root changes") {
  TempDir outside, d;
  write_file(outside / "secret.txt", "secret\n");
  write_file(d / ".git/config", "[core]\n");
  const std::string secret = (outside / "secret.txt").string();
  auto r = apply_response(d.str(), block("../" + outside.path().filename().string() + "/secret.txt", {"secret"}, {"x"}) +
                                       block(secret, {"secret"}, {"x"}) + block(".git/config", {"[core]"}, {"[x]"}) +
                                       block("../evil.txt", {}, {"x"}));
  REQUIRE(r.results.size() == 4);
  CHECK(r.results[0].reason == Reason::path_escape);
  CHECK(r.results[0].status == Status::skipped);
  CHECK(r.results[1].reason == Reason::path_escape);
  CHECK_THAT(r.results[1].diagnostic, Contains("absolute path"));
  CHECK(r.results[2].reason == Reason::protected_path);
  CHECK(r.results[2].status == Status::skipped);
  CHECK(r.results[3].reason == Reason::path_escape);
  CHECK(read_file(outside / "secret.txt") == "secret\n");
  CHECK(read_file(d / ".git/config") == "[core]\n");
  CHECK_FALSE(test::fs::exists(d.path().parent_path() / "evil.txt"));
}

TEST_CASE("a symlink on any component that leads outside the root is refused") {
  TempDir outside, d;
  write_file(outside / "lib/x.py", "x = 1\n");
  write_file(outside / "file.txt", "f\n");
  symlink_to(outside.str(), d / "out");                          // absolute, first component
  symlink_to(outside.str() + "/lib", d / "src/deep/lib");         // absolute, middle component
  symlink_to("../../" + std::string(".."), d / "src/up");         // relative, climbs out
  symlink_to(outside.str() + "/file.txt", d / "src/file.txt");    // the last component
  auto r = apply_response(d.str(), block("out/lib/x.py", {"x = 1"}, {"x = 2"}) + block("src/deep/lib/x.py", {"x = 1"}, {"x = 2"}) +
                                       block("src/up/x.py", {}, {"x"}) + block("src/file.txt", {"f"}, {"g"}) +
                                       block("out/new.py", {}, {"created outside?"}));
  REQUIRE(r.results.size() == 5);
  for (const auto& x : r.results) {
    CHECK(x.status == Status::skipped);
    CHECK(x.reason == Reason::path_escape);
  }
  CHECK_THAT(r.results[1].diagnostic, Contains("symlink src/deep/lib -> " + outside.str() + "/lib"));
  CHECK(read_file(outside / "lib/x.py") == "x = 1\n");
  CHECK(read_file(outside / "file.txt") == "f\n");
  CHECK_FALSE(test::fs::exists(outside / "new.py"));
}

TEST_CASE("symlinks that stay inside the root are followed / and the target file is written") {
  TempDir d;
  write_file(d / "real/a.py", "a = 1\n");
  symlink_to("real", d / "alias");                      // relative folder link
  symlink_to(d.str() + "/real/a.py", d / "abs_link.py");  // absolute link into the root
  symlink_to("../real/a.py", d / "sub/rel_link.py");
  auto r = apply_response(d.str(), block("alias/a.py", {"a = 1"}, {"a = 2"}) + block("abs_link.py", {"a = 2"}, {"a = 3"}) +
                                       block("sub/rel_link.py", {"a = 3"}, {"a = 4"}));
  for (const auto& x : r.results) CHECK(x.status == Status::applied);
  CHECK(read_file(d / "real/a.py") == "a = 4\n");
  CHECK(test::fs::is_symlink(d / "abs_link.py"));  // the link itself stays a link
  CHECK(test::fs::is_symlink(d / "sub/rel_link.py"));
}

TEST_CASE("a symlink into .git is protected / and symlink loops end") {
  TempDir d;
  write_file(d / ".git/HEAD", "ref: refs/heads/main\n");
  symlink_to(".git", d / "g");
  symlink_to("loop2", d / "loop1");
  symlink_to("loop1", d / "loop2");
  auto r = apply_response(d.str(), block("g/HEAD", {"ref: refs/heads/main"}, {"x"}) + block("loop1/a", {}, {"x"}));
  CHECK(r.results[0].reason == Reason::protected_path);
  CHECK(r.results[1].reason == Reason::path_escape);
  CHECK_THAT(r.results[1].diagnostic, Contains("too many levels of symlinks"));
  CHECK(read_file(d / ".git/HEAD") == "ref: refs/heads/main\n");
}

TEST_CASE("folders / pipes and files used as folders give clear errors") {
  TempDir d;
  write_file(d / "dir/x", "x\n");
  write_file(d / "plain.txt", "p\n");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  auto r = apply_response(d.str(), block("./dir", {"x"}, {"y"}) + block("./fifo", {"x"}, {"y"}) + block("plain.txt/x", {"p"}, {"q"}) +
                                       block("./dir", {}, {"y"}));
  CHECK(r.results[0].reason == Reason::file_not_found);
  CHECK_THAT(r.results[0].diagnostic, Contains("is a folder"));
  CHECK(r.results[1].reason == Reason::file_not_found);
  CHECK_THAT(r.results[1].diagnostic, Contains("named pipe"));
  CHECK(r.results[2].reason == Reason::file_not_found);
  CHECK_THAT(r.results[2].diagnostic, Contains("is a file, not a folder"));
  CHECK(r.results[3].status == Status::failed);
  CHECK(test::fs::is_directory(d / "dir"));
}
