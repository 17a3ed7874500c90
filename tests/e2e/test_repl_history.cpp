// The REPL's history stands beside the branch (record/repl_ref.hpp): the
// branch's log after a session holds the code changes only, every exchange
// is on the REPL's ref, one commit each, the two name each other, a
// workspace whose branch tracks debug/ gets one migration commit, and
// `editgate log --repl` pages back to the first commit. Against a real
// gateway with its Node page, read with the git command line.
#include "pages.hpp"

using namespace pagetest;

namespace {

std::string git1(const test::fs::path& dir, std::vector<std::string> args) {
  std::string out = test::git_ok(dir, std::move(args));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& l : repl::split_lines(text))
    if (!l.empty()) out.push_back(l);
  return out;
}

// A repository on main with one commit: app.js.
void app_workspace(const test::TempDir& dir) {
  test::write_file(dir / "app.js", "let x = 1;\n");
  test::git_ok(dir.path(), {"init", "-q", "-b", "main"});
  test::git_ok(dir.path(), {"add", "app.js"});
  test::git_ok(dir.path(), {"commit", "-q", "-m", "the app"});
}

}  // namespace

TEST_CASE("a session with evals and an edit: the branch holds the edit, the REPL's ref one commit per exchange, "
          "each naming the other",
          "[repl-history]") {
  test::TempDir dir;
  app_workspace(dir);
  client::Gateway gw(dir.str(), {}, true);
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page = std::string(wait_page(ws, "node-").at("page").as_string());

  // One eval at a time, further apart than the commits' gap: a commit each.
  for (int i = 1; i <= 3; ++i) {
    CHECK(eval(ws, page, std::to_string(i) + " * 7", R"(,"agent":"claude")").back().at("value") == i * 7);
    wait_commit(dir.path(), "reply: " + page + " to claude, job " + std::to_string(i));
    std::this_thread::sleep_for(100ms);
  }
  const std::string before_edit = git1(dir.path(), {"for-each-ref", "--format=%(objectname)", "refs/editgate/repl/"});
  client::Response r = client::request(gw.port(), "POST", "/v1/edits?agent=claude",
                                       test::block("app.js", {"let x = 1;"}, {"let x = 2;"}),
                                       {{"Authorization", "Bearer " + gw.cookie()}});
  REQUIRE(r.status == 200);
  const std::string edit = git1(dir.path(), {"rev-parse", "HEAD"});
  CHECK(eval(ws, page, "'after'", R"(,"agent":"claude")").back().at("value") == "after");
  wait_commit(dir.path(), "reply: " + page + " to claude, job 4");

  // The branch: the code change only.
  CHECK(git1(dir.path(), {"log", "--format=%s"}) == "edit app.js (1 applied)\nthe app");
  // The REPL's ref: the page's connect, then a commit per exchange, with what ran and what came of it.
  const std::vector<std::string> subjects = lines_of(repl_log(dir.path(), {"--reverse", "--format=%s"}));
  REQUIRE(subjects.size() == 5);
  CHECK(subjects[0].rfind("page " + page + " connected", 0) == 0);
  CHECK(subjects[1] == page + ": `1 * 7` → 7");
  CHECK(subjects[2] == page + ": `2 * 7` → 14");
  CHECK(subjects[3] == page + ": `3 * 7` → 21");
  CHECK(subjects[4] == page + ": `'after'` → \"after\"");
  // Linked both ways: the edit names the REPL commit current then, the
  // exchange after it the edit its page saw.
  CHECK(git1(dir.path(), {"log", "-1", "--format=%(trailers:key=Editgate-Repl,valueonly)", edit}) == before_edit);
  CHECK(repl_log(dir.path(), {"-1", "--format=%(trailers:key=Editgate-Branch,valueonly)"}) == edit + "\n\n");
  // Every exchange found from its page and job.
  for (int job = 1; job <= 4; ++job) {
    const std::string found = repl_log(dir.path(), {"--format=%s", "--grep=^Editgate-Job: " + std::to_string(job) + "$",
                                                    "--grep=^Editgate-Page: " + page + "$", "--all-match"});
    CHECK(lines_of(found).size() == 1);
  }
  // Nothing of the REPL shows in git status.
  CHECK(test::git_ok(dir.path(), {"status", "--porcelain"}).empty());

  // `editgate log --repl`, two at a time, back to the first commit.
  std::vector<std::string> listed;
  std::string before;
  for (int pages = 0; pages < 10; ++pages) {
    std::vector<std::string> args{EDITGATE_BIN, "log", "--root", dir.str(), "--repl", "-n", "2", "--format", "json"};
    if (!before.empty()) args.insert(args.end(), {"--before", before});
    test::Proc p = test::run(args);
    REQUIRE(p.exit_code == 0);
    const json::object o = json::parse(p.out).as_object();
    for (const auto& c : o.at("commits").as_array()) listed.emplace_back(c.at("summary").as_string());
    if (o.at("next_before").is_null()) break;
    before = std::string(o.at("next_before").as_string());
  }
  std::vector<std::string> newest_first(subjects.rbegin(), subjects.rend());
  CHECK(listed == newest_first);
  CHECK(gw.stop() == 0);
}

TEST_CASE("a workspace whose branch tracks debug/ gets one commit that stops tracking it; the logs stay, their "
          "history goes on at the REPL's ref",
          "[repl-history]") {
  test::TempDir dir;
  test::write_file(dir / "app.js", "1;\n");
  test::write_file(dir / "debug/old-1234.md", "# an old log\n\n> **claude** to old-1234 at 10:00:00\n```js\n"
                                              "require('fs').writeFileSync('ran.txt', 'x')\n```\n");
  test::write_file(dir / "debug-archive/old-1234-job1-ab.json", "\"big\"\n");
  test::git_ok(dir.path(), {"init", "-q", "-b", "main"});
  test::git_ok(dir.path(), {"add", "-A"});
  test::git_ok(dir.path(), {"commit", "-q", "-m", "with the logs"});
  const std::string old_head = git1(dir.path(), {"rev-parse", "HEAD"});
  {
    client::Gateway gw(dir.str(), {}, true);
    client::Ws ws(gw.port());
    ws.login(gw.cookie());
    wait_page(ws, "node-");
    CHECK(gw.stop() == 0);
    CHECK(gw.err().find("the chat logs (2 files of debug/ and debug-archive/) left the branch in commit") !=
          std::string::npos);
  }
  // One commit on the branch, naming where the history goes on.
  const std::vector<std::string> branch = lines_of(test::git_ok(dir.path(), {"log", "--format=%H %s"}));
  REQUIRE(branch.size() == 2);
  CHECK(branch[0].find(" editgate: the chat logs leave the branch; their history goes on at refs/editgate/repl/") !=
        std::string::npos);
  CHECK(git1(dir.path(), {"log", "-1", "--format=%(trailers:key=Editgate-Kind,valueonly)"}) == "repl-aside");
  CHECK(test::git_ok(dir.path(), {"ls-files", "debug", "debug-archive"}).empty());
  CHECK(git1(dir.path(), {"diff", "--name-only", old_head, "HEAD"}) ==
        "debug-archive/old-1234-job1-ab.json\ndebug/old-1234.md");
  // The files stay, ignored; the status is clean.
  CHECK(test::read_file(dir / "debug/old-1234.md").find("# an old log") == 0);
  CHECK(test::fs::exists(dir / "debug-archive/old-1234-job1-ab.json"));
  CHECK(test::git_ok(dir.path(), {"status", "--porcelain"}).empty());
  // The REPL's ref starts from them: the log at its top, the archive in archive/.
  const std::string from_branch = repl_log(dir.path(), {"--reverse", "--format=%H %s"});
  CHECK(from_branch.find("repl: the chat logs as the branch had them at " + old_head.substr(0, 12)) != std::string::npos);
  const std::string first = from_branch.substr(0, 40);
  CHECK(test::git_ok(dir.path(), {"ls-tree", "-r", "--name-only", first}) ==
        "archive/old-1234-job1-ab.json\nold-1234.md\n");
  CHECK(git1(dir.path(), {"log", "-1", "--format=%(trailers:key=Editgate-Repl,valueonly)", "HEAD"}) == first);
  // The committed request never ran.
  CHECK_FALSE(test::fs::exists(dir / "ran.txt"));

  // A second start changes nothing on the branch.
  {
    client::Gateway gw(dir.str(), {}, true);
    client::Ws ws(gw.port());
    ws.login(gw.cookie());
    wait_page(ws, "node-");
    CHECK(gw.stop() == 0);
  }
  CHECK(lines_of(test::git_ok(dir.path(), {"log", "--format=%H"})).size() == 2);
}

TEST_CASE("a failed run and a dry run are on the record on the REPL's ref, with their diagnostics, after a restart",
          "[repl-history]") {
  test::TempDir dir;
  app_workspace(dir);
  {
    client::Gateway gw(dir.str());
    const std::string bearer = "Bearer " + gw.cookie();
    // A block whose lines are not in the file: it fails, nothing is committed.
    REQUIRE(client::request(gw.port(), "POST", "/v1/edits?agent=claude",
                            test::block("app.js", {"let y = 1;"}, {"let y = 2;"}), {{"Authorization", bearer}})
                .status == 200);
    // A dry run that would apply.
    REQUIRE(client::request(gw.port(), "POST", "/v1/edits?agent=ci&dry_run=true",
                            test::block("app.js", {"let x = 1;"}, {"let x = 3;"}), {{"Authorization", bearer}})
                .status == 200);
    // An edit that applies whole is the branch's, and nothing more.
    REQUIRE(client::request(gw.port(), "POST", "/v1/edits?agent=claude",
                            test::block("app.js", {"let x = 1;"}, {"let x = 2;"}), {{"Authorization", bearer}})
                .status == 200);
    CHECK(gw.stop() == 0);
  }
  CHECK(git1(dir.path(), {"log", "--format=%s"}) == "edit app.js (1 applied)\nthe app");
  test::Proc p = test::run({EDITGATE_BIN, "log", "--root", dir.str(), "--repl", "--kind", "run"});
  REQUIRE(p.exit_code == 0);
  INFO(p.out);
  CHECK(p.out.find("run  ci") != std::string::npos);
  CHECK(p.out.find("check by ci (POST /v1/edits): 1 validated") != std::string::npos);
  CHECK(p.out.find("run by claude (POST /v1/edits): 1 failed") != std::string::npos);
  CHECK(p.out.find("run by claude (POST /v1/edits): 1 applied") == std::string::npos);
  // The diagnostic as the model read it, in the commit's body.
  const std::string bodies = repl_log(dir.path(), {"--format=%B"});
  CHECK(bodies.find("app.js:1: failed (anchor_not_found)  block 1") != std::string::npos);
  CHECK(bodies.find("the file has \"x = 1;\" where your block has \"y = 1;\"") != std::string::npos);
  CHECK(bodies.find("Editgate-Kind: run") != std::string::npos);
}

TEST_CASE("a realm that runs nothing leaves no log and no commit; one that runs code leaves its log, its exchange "
          "in one commit",
          "[repl-history]") {
  NodeGateway g;
  wait_commit(g.dir.path(), "page " + g.name);
  const std::size_t before = lines_of(repl_log(g.dir.path(), {"--format=%H"})).size();
  auto realm = [&g] {
    g.ws.send(R"({"op":"clone","id":"c"})");
    const json::object o = obj(g.ws.until_done(20s).back());
    REQUIRE(o.at("status") == json::array{"done"});
    return std::string(o.at("value").as_string());
  };
  auto close = [&g](const std::string& session) {
    g.ws.send(R"({"op":"close","id":"x","session":")" + session + R"("})");
    REQUIRE(obj(g.ws.until_done(20s).back()).at("status") == json::array{"done"});
  };
  // Opened and closed, a hundred times: nothing on disk, nothing in git.
  for (int i = 0; i < 100; ++i) close(realm());
  std::size_t logs = 0;
  for (const auto& e : test::fs::directory_iterator(g.dir / "debug")) logs += e.path().extension() == ".md" ? 1 : 0;
  CHECK(logs == 1);  // the Node page's own
  CHECK(lines_of(repl_log(g.dir.path(), {"--format=%H"})).size() == before);

  // One that runs code: its log, with the request and reply in one commit.
  const std::string session = realm();
  g.ws.send(R"({"op":"eval","id":"e","session":")" + session + R"(","code":"6 * 7","agent":"claude"})");
  const json::object done = obj(g.ws.until_done(20s).back());
  REQUIRE(done.at("value") == 42);
  const std::string page(done.at("page").as_string());
  wait_commit(g.dir.path(), "reply: " + page);
  CHECK(test::fs::exists(g.dir / ("debug/" + page + ".md")));
  CHECK(lines_of(repl_log(g.dir.path(), {"--format=%s"})).front() == page + ": `6 * 7` → 42");
  CHECK(lines_of(repl_log(g.dir.path(), {"--format=%H"})).size() == before + 1);
  CHECK(repl_text(g.dir.path(), "debug/" + page + ".md") == test::read_file(g.dir / ("debug/" + page + ".md")));
  close(session);
}
