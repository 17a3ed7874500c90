// The built editgate binary against fixture trees: output, exit codes, files.
#include "support.hpp"

#include "record/run_journal.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

using Catch::Contains;
using test::read_file;
using test::TempDir;

namespace {

using Result = test::Proc;

Result editgate(std::vector<std::string> args, const std::string& input = "",
                const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), EDITGATE_BIN);
  return test::run(std::move(args), input, env);
}

// A copy of the example tree in a fresh temp dir.
struct Tree {
  TempDir dir;
  Tree() { test::fs::copy(FIXTURES "/example/tree", dir.path(), test::fs::copy_options::recursive); }
  std::string root() const { return dir.str(); }
};

const std::string kResponse = FIXTURES "/example/response.md";
const std::string kBroken = FIXTURES "/cli/broken.md";

}  // namespace

TEST_CASE("cli: check validates the example and writes nothing (exit 0)") {
  Tree t;
  const std::string before = read_file(t.dir / "src/inventory.py");
  Result r = editgate({"check", "--root", t.root(), kResponse});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("src/inventory.py:13: validated"));
  CHECK_THAT(r.out, Contains("3 validated"));
  CHECK(r.out.find('\x1b') == std::string::npos);  // no colour when not a terminal
  CHECK(read_file(t.dir / "src/inventory.py") == before);
  CHECK_FALSE(test::fs::exists(t.dir / "tests"));
}

TEST_CASE("cli: apply --format json changes the files and prints one JSON object") {
  Tree t;
  Result r = editgate({"apply", "--root", t.root(), "--format", "json", "--agent", "claude", kResponse});
  CHECK(r.exit_code == 0);
  auto v = boost::json::parse(r.out).as_object();
  auto& blocks = v["blocks"].as_array();
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].at("status").as_string() == "applied");
  CHECK(blocks[0].at("reason").is_null());
  CHECK(blocks[0].at("line").as_int64() == 13);
  CHECK(blocks[0].at("path").as_string() == "src/inventory.py");
  CHECK(blocks[2].at("path").as_string() == "tests/test_inventory.py");
  CHECK(v["files_auto_added"].as_array().empty());
  CHECK(v["commit"].is_string());  // a repository was created for the workspace
  CHECK(v["commit_error"].is_null());
  CHECK_THAT(read_file(t.dir / "src/inventory.py"), Contains("return sum(item.price * item.quantity for item in items)"));
  CHECK_THAT(read_file(t.dir / "src/inventory.py"), Contains("def require(items, name):"));
  CHECK_THAT(read_file(t.dir / "tests/test_inventory.py"), Contains("def test_total_counts_quantity():"));
}

TEST_CASE("cli: failures exit 1 and report every block - --format github annotates the right lines") {
  Tree t;
  const std::string before = read_file(t.dir / "src/inventory.py");
  Result json = editgate({"check", "--root", t.root(), "--format", "json", kBroken});
  CHECK(json.exit_code == 1);
  auto blocks = boost::json::parse(json.out).at("blocks").as_array();
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].at("status").as_string() == "validated");
  CHECK(blocks[1].at("status").as_string() == "failed");
  CHECK(blocks[1].at("reason").as_string() == "whitespace");
  CHECK(blocks[1].at("line").as_int64() == 13);
  CHECK(blocks[2].at("status").as_string() == "skipped");
  CHECK(blocks[2].at("reason").as_string() == "path_escape");

  Result gh = editgate({"check", "--root", t.root(), "--format", "github", kBroken});
  CHECK(gh.exit_code == 1);
  CHECK_THAT(gh.out, Contains("::error file=src/inventory.py,line=13,title=editgate whitespace::src/inventory.py: the "
                              "EDIT section (3 lines) does not occur exactly, but it matches lines 13-15"));
  CHECK_THAT(gh.out, Contains("%0Aline 15: indentation: the file's line is indented with 4 spaces, your block's with 2 spaces%0A"));
  CHECK_THAT(gh.out, Contains("::warning title=editgate path_escape::'../outside.py' uses '..' to leave the workspace root"));
  CHECK_THAT(gh.out, Contains("editgate: 1 validated, 1 failed, 1 skipped"));

  Result text = editgate({"apply", "--root", t.root(), kBroken});
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, Contains("src/inventory.py:13: failed (whitespace)  block 2, response line 17"));
  CHECK_THAT(read_file(t.dir / "src/inventory.py"), Contains("if item.name.lower() == name.lower():"));
  CHECK(read_file(t.dir / "src/inventory.py") != before);
  CHECK_FALSE(test::fs::exists(t.dir.path().parent_path() / "outside.py"));
}

TEST_CASE("cli: --fuzz whitespace applies the tolerant match and reports it") {
  Tree t;
  Result r = editgate({"apply", "--root", t.root(), "--fuzz", "whitespace", "--format", "json", kBroken});
  auto blocks = boost::json::parse(r.out).at("blocks").as_array();
  CHECK(blocks[1].at("status").as_string() == "applied");
  CHECK(blocks[1].at("tolerance").as_string() == "whitespace");
  CHECK_THAT(read_file(t.dir / "src/inventory.py"), Contains("    total = 0.0\n    for item in items:\n"));
}

TEST_CASE("cli: reads the response from standard input") {
  Tree t;
  Result r = editgate({"check", "--root", t.root(), "-"}, read_file(kResponse));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("3 validated"));
  Result none = editgate({"check", "--root", t.root()}, "no blocks here\n");
  CHECK(none.exit_code == 0);
  CHECK_THAT(none.out, Contains("no edit blocks found"));
}

TEST_CASE("cli: --context marks unseen files not_in_context and lists them") {
  Tree t;
  Result r = editgate({"check", "--root", t.root(), "--context", "README.md", "--format", "json", kResponse});
  CHECK(r.exit_code == 1);
  auto v = boost::json::parse(r.out).as_object();
  CHECK(v["blocks"].as_array()[0].at("status").as_string() == "not_in_context");
  CHECK(v["blocks"].as_array()[2].at("status").as_string() == "validated");  // a create block
  CHECK(v["files_auto_added"].as_array() == boost::json::array{"src/inventory.py"});
}

TEST_CASE("cli: usage errors exit 2 - --help and --version exit 0") {
  Tree t;
  CHECK(editgate({"check", "--format", "xml", kResponse}).exit_code == 2);
  CHECK(editgate({"check", "--fuzz", "everything", kResponse}).exit_code == 2);
  CHECK(editgate({"check", "--root", t.root() + "/does-not-exist", kResponse}).exit_code == 2);
  CHECK(editgate({"frobnicate"}).exit_code == 2);
  CHECK(editgate({}).exit_code == 2);
  Result missing = editgate({"check", "--root", t.root(), t.root() + "/no-such-response.md"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("cannot read"));
  Result help = editgate({"check", "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Contains("--fuzz"));
  Result version = editgate({"--version"});
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Contains("editgate 0."));
}

TEST_CASE("cli: apply commits once - log shows it - undo reverts it - a second undo has nothing left") {
  Tree t;
  // A machine where git knows nobody: no global config, no identity.
  TempDir home;
  const std::vector<std::string> env = {"HOME=" + home.str(), "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=" + home.str()};
  Result r = editgate({"apply", "--root", t.root(), "--agent", "claude", "--session", "s42", "--format", "json", kResponse},
                      "", env);
  REQUIRE(r.exit_code == 0);
  auto v = boost::json::parse(r.out).as_object();
  REQUIRE(v["commit"].is_string());
  const std::string commit(v["commit"].as_string());
  CHECK(v["earlier_commit"].is_string());  // src/inventory.py was untracked: recorded first, as the user's
  CHECK(v["session"].as_string() == "s42");
  CHECK(test::git_ok(t.dir.path(), {"rev-parse", "HEAD"}) == commit + "\n");
  CHECK(test::git_ok(t.dir.path(), {"status", "--porcelain"}).empty());

  Result log = editgate({"log", "--root", t.root(), "--format", "json"}, "", env);
  REQUIRE(log.exit_code == 0);
  auto commits = boost::json::parse(log.out).at("commits").as_array();
  REQUIRE(commits.size() == 2);
  CHECK(commits[0].at("commit").as_string() == commit);
  CHECK(commits[0].at("kind").as_string() == "edit");
  CHECK(commits[0].at("agent").as_string() == "claude");
  CHECK(commits[0].at("blocks").as_array().size() == 3);
  CHECK(commits[0].at("blocks").as_array()[2].at("path").as_string() == "tests/test_inventory.py");
  CHECK(commits[1].at("kind").as_string() == "earlier-state");

  CHECK(boost::json::parse(editgate({"log", "--root", t.root(), "--format", "json", "-n", "1"}, "", env).out)
            .at("commits").as_array().size() == 1);
  CHECK(boost::json::parse(editgate({"log", "--root", t.root(), "--format", "json", "--agent", "other"}, "", env).out)
            .at("commits").as_array().empty());
  CHECK(boost::json::parse(editgate({"log", "--root", t.root(), "--format", "json", "--session", "s42"}, "", env).out)
            .at("commits").as_array().size() == 2);
  Result text = editgate({"log", "--root", t.root()}, "", env);
  CHECK_THAT(text.out, Contains("edit  claude  session s42\n    edit src/inventory.py, tests/test_inventory.py (3 applied)\n"
                                "    block 1 applied: src/inventory.py:13\n"));

  const std::string edited = read_file(t.dir / "src/inventory.py");
  Result undo = editgate({"undo", "--root", t.root()}, "", env);
  CHECK(undo.exit_code == 0);
  CHECK_THAT(undo.out, Contains("undid " + commit.substr(0, 12) + " (edit src/inventory.py, tests/test_inventory.py"));
  CHECK_FALSE(test::fs::exists(t.dir / "tests/test_inventory.py"));
  CHECK(read_file(t.dir / "src/inventory.py") != edited);
  CHECK(test::git_ok(t.dir.path(), {"status", "--porcelain"}).empty());

  Result again = editgate({"undo", "--root", t.root(), "--format", "json"}, "", env);
  CHECK(again.exit_code == 1);
  auto err = boost::json::parse(again.out).at("error");
  CHECK(err.at("reason").as_string() == "not_found");
}

// A run that wrote a file and died before its commit (its journal dropped,
// as a kill drops it): the next `apply` commits that file first, as the dead
// run's agent's, and says so; its own commit holds only its own edit.
TEST_CASE("cli: apply first commits what an interrupted run left, as that run's agent's") {
  TempDir d;
  test::write_file(d / "a.txt", "one\n");
  test::write_file(d / "b.txt", "two\n");
  test::git_ok(d.path(), {"init", "-q"});
  test::git_ok(d.path(), {"add", "-A"});
  test::git_ok(d.path(), {"commit", "-q", "-m", "start"});
  {
    record::RunJournal dead(d.str() + "/.git/", "killed-agent", "s-dead");
    const std::string base = "one\n";
    const std::string_view bytes = "ONE\n";
    dead.writing("a.txt", &base, std::span<const std::string_view>(&bytes, 1));
    test::write_file(d / "a.txt", "ONE\n");
  }
  TempDir io;
  test::write_file(io / "r.md", test::block("b.txt", {"two"}, {"TWO"}));
  Result r = editgate({"apply", "--root", d.str(), "--agent", "next-agent", (io / "r.md").string()});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const std::string first = test::git_ok(d.path(), {"rev-parse", "HEAD~1"}).substr(0, 12);
  CHECK_THAT(r.out, Contains("committed " + first + " first: files an interrupted run of killed-agent had left "
                             "uncommitted\n"));
  CHECK(test::git_ok(d.path(), {"log", "--format=%an|%s", "-3"}) ==
        "next-agent|edit b.txt (1 applied)\n"
        "killed-agent|edit a.txt (left by an interrupted run)\n"
        "Repo User|start\n");
  CHECK(test::git_ok(d.path(), {"status", "--porcelain"}).empty());

  // --format json names it too; a second run finds nothing left.
  test::write_file(io / "r.md", test::block("b.txt", {"TWO"}, {"2"}));
  Result j = editgate({"apply", "--root", d.str(), "--format", "json", (io / "r.md").string()});
  CHECK(boost::json::parse(j.out).at("interrupted").as_array().empty());
}

TEST_CASE("cli: apply --no-commit writes the files and leaves git alone") {
  Tree t;
  Result r = editgate({"apply", "--root", t.root(), "--no-commit", "--format", "json", kResponse});
  CHECK(r.exit_code == 0);
  auto v = boost::json::parse(r.out).as_object();
  CHECK(v["commit"].is_null());
  CHECK(v["session"].is_null());
  CHECK_FALSE(test::fs::exists(t.dir / ".git"));
  CHECK_THAT(read_file(t.dir / "src/inventory.py"), Contains("def require(items, name):"));
}

TEST_CASE("cli: a git lock held by another process stops apply before any file is written") {
  Tree t;
  test::git_ok(t.dir.path(), {"init", "-q"});
  test::write_file(t.dir / ".git/index.lock", "");
  const std::string before = read_file(t.dir / "src/inventory.py");
  Result r = editgate({"apply", "--root", t.root(), "--lock-timeout", "100", kResponse});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Contains("editgate: locked: "));
  CHECK_THAT(r.err, Contains("index.lock is held by another git process (waited 100 ms); if no git command is "
                             "running, delete that file (or write the files without a commit: --no-commit)"));
  CHECK(read_file(t.dir / "src/inventory.py") == before);
}

TEST_CASE("cli: log outside a repository exits 2 with the reason") {
  TempDir d;
  Result r = editgate({"log", "--root", d.str()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("editgate: cannot open the git repository of "));
}

TEST_CASE("cli: a broken repository stops apply before any file is written") {
  Tree t;
  test::git_ok(t.dir.path(), {"init", "-q"});
  test::write_file(t.dir / ".git/HEAD", "ref: refs/heads/main\n");
  test::write_file(t.dir / ".git/refs/heads/main", "0123456789012345678901234567890123456789\n");  // no such commit
  const std::string before = read_file(t.dir / "src/inventory.py");
  Result r = editgate({"apply", "--root", t.root(), kResponse});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("cannot read HEAD's commit 0123456789012345678901234567890123456789"));
  CHECK(read_file(t.dir / "src/inventory.py") == before);
  CHECK_FALSE(test::fs::exists(t.dir / "tests"));
}

TEST_CASE("cli: log of a repository with no commits yet says so and exits 0") {
  TempDir d;
  test::git_ok(d.path(), {"init", "-q"});
  Result text = editgate({"log", "--root", d.str()});
  CHECK(text.exit_code == 0);
  CHECK(text.out == "no editgate commits\n");
  Result json = editgate({"log", "--root", d.str(), "--format", "json"});
  CHECK(json.exit_code == 0);
  CHECK(json.out == "{\"ref\":\"HEAD\",\"commits\":[],\"next_before\":null}\n");
}

TEST_CASE("cli: apply in the middle of a merge writes nothing and says why - --no-commit still works") {
  Tree t;
  const auto& dir = t.dir.path();
  test::git_ok(dir, {"init", "-q", "-b", "main"});
  test::git_ok(dir, {"add", "-A"});
  test::git_ok(dir, {"commit", "-q", "-m", "init"});
  test::git_ok(dir, {"checkout", "-q", "-b", "other"});
  test::write_file(t.dir / "notes.txt", "theirs\n");
  test::git_ok(dir, {"add", "notes.txt"});
  test::git_ok(dir, {"commit", "-q", "-m", "theirs"});
  test::git_ok(dir, {"checkout", "-q", "main"});
  test::write_file(t.dir / "notes.txt", "ours\n");
  test::git_ok(dir, {"add", "notes.txt"});
  test::git_ok(dir, {"commit", "-q", "-m", "ours"});
  CHECK(test::git(dir, {"merge", "-q", "other"}).exit_code != 0);  // a conflict: MERGE_HEAD exists
  const std::string before = read_file(t.dir / "src/inventory.py");

  Result r = editgate({"apply", "--root", t.root(), kResponse});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("the repository is in the middle of a merge; finish or abort it first"));
  CHECK(read_file(t.dir / "src/inventory.py") == before);

  Result files_only = editgate({"apply", "--root", t.root(), "--no-commit", kResponse});
  CHECK(files_only.exit_code == 0);
  CHECK(read_file(t.dir / "src/inventory.py") != before);
}

TEST_CASE("cli: stray markers are warnings - not blocks, and the exit code stays 0") {
  Tree t;
  const std::string response = "Blocks end with a line\n\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n\nand the new lines follow\n"
                               "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n\n" +
                               test::block("src/inventory.py", {"def find(items, name):"}, {"def find(items, name):", "    # linear"});
  Result json = editgate({"check", "--root", t.root(), "--format", "json"}, response);
  CHECK(json.exit_code == 0);
  auto v = boost::json::parse(json.out).as_object();
  REQUIRE(v["blocks"].as_array().size() == 1);
  CHECK(v["blocks"].as_array()[0].at("status").as_string() == "validated");
  auto& warnings = v["warnings"].as_array();
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].at("line").as_int64() == 3);
  CHECK(warnings[0].at("code").as_string() == "stray_marker");
  CHECK_THAT(std::string(warnings[0].at("message").as_string()), Contains("EDIT END line outside any block"));
  CHECK(warnings[1].at("line").as_int64() == 6);

  Result text = editgate({"check", "--root", t.root()}, response);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Contains("response line 3: warning (stray_marker): "));
  CHECK_THAT(text.out, Contains("1 validated\n"));

  Result gh = editgate({"check", "--root", t.root(), "--format", "github"}, response);
  CHECK(gh.exit_code == 0);
  CHECK_THAT(gh.out, Contains("::warning title=editgate stray_marker::response line 3: "));
  CHECK(gh.out.find("::error") == std::string::npos);
}

TEST_CASE("cli: results say when a block reused the previous block's path") {
  Tree t;
  const std::string response =
      test::block("src/inventory.py", {"def find(items, name):"}, {"def find(items, name):", "    # linear"}) +
      "\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\ndef total_value(items):\n"
      "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n"
      "def total_value(items):\n    # sums\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n";
  Result json = editgate({"check", "--root", t.root(), "--format", "json"}, response);
  CHECK(json.exit_code == 0);
  auto blocks = boost::json::parse(json.out).at("blocks").as_array();
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].at("path_reused").as_bool() == false);
  CHECK(blocks[1].at("path_reused").as_bool() == true);
  Result text = editgate({"check", "--root", t.root()}, response);
  CHECK_THAT(text.out, Contains("validated  block 2, response line 9, path reused from block 1, -0 +1 lines"));
}

TEST_CASE("cli: --context takes one value per flag - the response file after it is read") {
  Tree t;
  Result r = editgate({"check", "--root", t.root(), "--context", "src/inventory.py", kResponse});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("3 validated"));
  Result two = editgate({"check", "--root", t.root(), "--context", "README.md", "--context", "src/inventory.py",
                         "--format", "json", kResponse});
  CHECK(two.exit_code == 0);
  CHECK(boost::json::parse(two.out).at("blocks").as_array().size() == 3);
}

namespace {

// Runs editgate with a terminal (a pseudo-terminal) as its standard input,
// as a person at a shell would; gives up after 10 s (a run that waits for the
// terminal forever is the bug this guards against).
Result editgate_on_terminal(std::vector<std::string> args) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0);
  REQUIRE(::grantpt(master) == 0);
  REQUIRE(::unlockpt(master) == 0);
  const std::string slave_name = ::ptsname(master);
  TempDir io;
  const std::string out = (io / "out").string(), err = (io / "err").string();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, slave_name.c_str(), O_RDWR | O_NOCTTY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addclose(&fa, master);
  args.insert(args.begin(), EDITGATE_BIN);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 1000 && !exited; ++i) {
    exited = ::waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) ::usleep(10'000);
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ::close(master);
  Result r;
  r.exit_code = exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(io / "out");
  r.err = read_file(io / "err");
  return r;
}

}  // namespace

TEST_CASE("cli: reading the response from a terminal without an explicit - is a usage error") {
  Tree t;
  Result r = editgate_on_terminal({"check", "--root", t.root()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("no response file given, and standard input is a terminal"));
  CHECK(r.out.empty());
  // A file argument or a pipe still works (see the tests above); so does an explicit -, which reads the terminal.
}
