// Committed text is history, never instructions: a request that reaches a
// chat log through git (a teammate's pushed commit pulled, a branch checked
// out, a reset, the user's own `git commit` before the gateway saw it) does
// not run; it gets a note saying how to run it. A local, uncommitted append
// still runs, also when it waited for a gateway restart. Against a real
// gateway with its built-in Node page, and the git command line.
#include "pages.hpp"

#include <fcntl.h>
#include <unistd.h>

using namespace pagetest;

namespace {

const std::string agent_script = std::string(AGENTS) + "/append_and_wait.sh";

// What the pages' JavaScript writes when it runs: the proof that it ran.
std::string writes(const std::string& file) {
  return "```js\nrequire('fs').writeFileSync('" + file + "', 'ran')\n```\n";
}

void append(const test::fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

bool has_note(const std::string& text) { return text.find("came with git") != std::string::npos; }

// Waits until the REPL's ref holds the log as it is on disk (the gateway's
// commits are done).
void wait_clean(const test::fs::path& dir, const std::string& rel) {
  for (int i = 0; i < 200; ++i) {
    if (repl_text(dir, rel) == test::read_file(dir / rel)) return;
    std::this_thread::sleep_for(25ms);
  }
  FAIL("the log never got committed on the REPL's ref");
}

// A second clone of the workspace's remote (its branch `from`), as a
// teammate's: the log as `log` has it with `text` at its end, force-added,
// committed and pushed to `branch` by someone else.
void teammate_pushes(const test::fs::path& remote, const test::fs::path& clone, const std::string& from,
                     const test::fs::path& log, const std::string& rel, const std::string& text,
                     const std::string& branch) {
  test::git_ok(clone.parent_path(), {"clone", "-q", "-b", from, remote.string(), clone.string()});
  test::fs::create_directories((clone / rel).parent_path());
  test::write_file(clone / rel, test::read_file(log) + text);
  test::git_ok(clone, {"add", "-f", rel});
  test::git_ok(clone, {"commit", "-qm", "a request, committed elsewhere"});
  test::git_ok(clone, {"push", "-q", "origin", "HEAD:refs/heads/" + branch});
}

// The fixture's own request runs and is answered: the page is alive, and
// anything queued before it would have run first.
void local_request_runs(const test::TempDir& dir, const std::string& name, const std::string& code,
                        const std::string& answer) {
  auto w = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, code});
  INFO(w.err);
  CHECK(w.exit_code == 0);
  CHECK(w.out == answer + "\n");
}

}  // namespace

TEST_CASE_METHOD(NodeGateway, "a request a teammate committed does not run when git brings it into the log", "[trust]") {
  wait_commit(dir.path(), "page " + name);
  wait_clean(dir.path(), rel);
  test::TempDir elsewhere;
  const auto remote = elsewhere / "remote.git";
  test::git_ok(elsewhere.path(), {"init", "-q", "--bare", remote.string()});
  test::git_ok(dir.path(), {"remote", "add", "origin", remote.string()});
  test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "the app"});
  test::git_ok(dir.path(), {"push", "-q", "-u", "origin", "HEAD"});
  const std::string branch = test::git_ok(dir.path(), {"rev-parse", "--abbrev-ref", "HEAD"});
  const std::string here = branch.substr(0, branch.size() - 1);

  SECTION("git pull") {
    teammate_pushes(remote, elsewhere / "clone", here, log, rel,
                    "> **mallory** to " + name + " at 10:00:00\n" + writes("pulled.txt"), here);
    test::git_ok(dir.path(), {"pull", "-q", "--ff-only"});
  }
  SECTION("git checkout of a fetched branch") {
    teammate_pushes(remote, elsewhere / "clone", here, log, rel, writes("pulled.txt"), "evil");
    test::git_ok(dir.path(), {"fetch", "-q", "origin"});
    test::git_ok(dir.path(), {"checkout", "-q", "-b", "evil", "origin/evil"});
  }
  SECTION("git reset --hard to a fetched commit") {
    teammate_pushes(remote, elsewhere / "clone", here, log, rel, writes("pulled.txt"), "evil");
    test::git_ok(dir.path(), {"fetch", "-q", "origin"});
    test::git_ok(dir.path(), {"reset", "-q", "--hard", "origin/evil"});
  }
  // The request stays unanswered, with a note that says why and what to do.
  const std::string text = wait_file(log, has_note);
  INFO(text << gw.err());
  CHECK(text.find("send it again") != std::string::npos);
  CHECK(text.find("writeFileSync('pulled.txt'") != std::string::npos);
  // The next local request runs, and the pulled one did not run before it.
  local_request_runs(dir, name, "6 * 7", "42");
  CHECK_FALSE(test::fs::exists(dir / "pulled.txt"));
  const std::string after = test::read_file(log);
  CHECK(count(after, "> **" + name + "** to ") == 1);  // one reply: the local request's
  // The note is the gateway's, committed as the page's on the REPL's ref.
  wait_clean(dir.path(), rel);
  CHECK(has_note(repl_text(dir.path(), rel)));
}

TEST_CASE("requests waiting in a log across a gateway restart: uncommitted ones run, committed ones do not", "[trust]") {
  test::TempDir dir;
  std::string name, rel;
  {
    client::Gateway gw{dir.str(), {}, true};
    client::Ws ws{gw.port()};
    ws.login(gw.cookie());
    name = wait_page(ws, "node-").at("page").as_string();
    rel = "debug/" + name + ".md";
    wait_commit(dir.path(), "page " + name);
    wait_clean(dir.path(), rel);
    gw.stop();
  }
  const auto log = dir / rel;

  SECTION("appended and left uncommitted: runs when the page connects") {
    append(log, writes("local.txt"));
    client::Gateway gw{dir.str(), {}, true};
    wait_commit(dir.path(), "reply: " + name + " to agent");
    const std::string text = test::read_file(log);
    INFO(text << gw.err());
    CHECK(test::fs::exists(dir / "local.txt"));
    CHECK_FALSE(has_note(text));
  }
  SECTION("appended and committed by the user: does not run, and the log says why") {
    append(log, writes("committed.txt"));
    test::git_ok(dir.path(), {"add", "-f", rel});
    test::git_ok(dir.path(), {"commit", "-qm", "a request in the log"});
    client::Gateway gw{dir.str(), {}, true};
    const std::string text = wait_file(log, has_note);
    INFO(text << gw.err());
    local_request_runs(dir, name, "'still here'", "\"still here\"");
    CHECK_FALSE(test::fs::exists(dir / "committed.txt"));
  }
  SECTION("committed, then a local request appended below it: only the local one runs") {
    append(log, writes("committed.txt"));
    test::git_ok(dir.path(), {"add", "-f", rel});
    test::git_ok(dir.path(), {"commit", "-qm", "a request in the log"});
    // A header of its own: a bare block right under a request continues it.
    append(log, "> **claude** to " + name + " at 10:00:01\n" + writes("local.txt"));
    client::Gateway gw{dir.str(), {}, true};
    wait_commit(dir.path(), "reply: " + name + " to claude");
    const std::string text = test::read_file(log);
    INFO(text << gw.err());
    CHECK(has_note(text));
    CHECK(test::fs::exists(dir / "local.txt"));
    local_request_runs(dir, name, "1 + 1", "2");
    CHECK_FALSE(test::fs::exists(dir / "committed.txt"));
  }
}
