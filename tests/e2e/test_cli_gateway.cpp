// The command line against a running gateway: `eval`, `wait` and `pages`
// find their workspace as git finds .git, recognise a gateway that died, say
// an ambiguous page name is ambiguous, and show what an inbox message did.
#include "pages.hpp"
#include "places.hpp"

#include <csignal>
#include <thread>

using namespace pagetest;

namespace {

// `editgate args...` run from `folder` (the commands look for their workspace from there).
test::Proc editgate_in(const test::fs::path& folder, std::vector<std::string> args) {
  args.insert(args.begin(), {"sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", folder.string(), EDITGATE_BIN});
  return test::run(std::move(args));
}

test::Proc editgate(std::vector<std::string> args) {
  args.insert(args.begin(), EDITGATE_BIN);
  return test::run(std::move(args));
}

// What no error message may show: a library's source location, the raw
// shape of a system_error, an answer that says nothing.
void check_plain(const std::string& err) {
  INFO(err);
  CHECK(err.find(".hpp") == std::string::npos);
  CHECK(err.find("[system:") == std::string::npos);
  CHECK(err.find("in function") == std::string::npos);
  CHECK(err.find("not JSON") == std::string::npos);
  CHECK(count(err, "no gateway") <= 1);
  CHECK(count(err, "editgate serve") <= 1);
  CHECK(count(err, "\n") == 1);  // one line
}

}  // namespace

TEST_CASE_METHOD(NodeGateway, "cli: eval, wait and pages find the served workspace above the current folder, and --root overrides", "[cli]") {
  const auto deeper = dir / "src/deeper";
  test::fs::create_directories(deeper);

  test::Proc e = editgate_in(deeper, {"eval", "node", "6 * 7"});
  INFO(e.err);
  CHECK(e.exit_code == 0);
  CHECK(e.out == "42\n");

  test::Proc w = editgate_in(deeper, {"wait", "--page", "node", "--timeout", "30"});
  INFO(w.err);
  CHECK(w.exit_code == 0);
  CHECK(w.out == "42\n");

  test::Proc p = editgate_in(deeper, {"pages"});
  INFO(p.err);
  CHECK(p.exit_code == 0);
  CHECK(p.out.rfind("PAGE ", 0) == 0);
  const std::size_t row = p.out.find("\n" + name + " ");
  REQUIRE(row != std::string::npos);
  const std::string line = p.out.substr(row + 1, p.out.find('\n', row + 1) - row - 1);
  CHECK(line.find(" node ") != std::string::npos);
  CHECK(line.find(" idle ") != std::string::npos);
  CHECK(line.find(" 0 ") != std::string::npos);
  CHECK(line.find(" " + rel + " ") != std::string::npos);
  CHECK(line.find("node:") != std::string::npos);  // the Node page's URL
  test::Proc pj = editgate_in(deeper, {"pages", "--format", "json"});
  CHECK(pj.exit_code == 0);
  CHECK(obj(pj.out).at("pages").as_array().at(0).at("page").as_string() == name);

  // Inside another repository whose gateway is not running: its top is the
  // workspace found, and --root names this one instead.
  test::TempDir other;
  test::git_ok(other.path(), {"init", "-q"});
  test::fs::create_directories(other / "sub");
  test::Proc found = editgate_in(other / "sub", {"eval", "node", "1"});
  CHECK(found.exit_code == 2);
  CHECK(found.err.find("editgate eval: no gateway is running (none has served " + other.str() + ")") == 0);
  check_plain(found.err);
  test::Proc given = editgate_in(other / "sub", {"eval", "--root", dir.str(), "node", "1 + 1"});
  CHECK(given.exit_code == 0);
  CHECK(given.out == "2\n");

  // No repository here or above: said so, once, and nothing is made.
  test::TempDir none;
  for (const char* command : {"pages", "eval", "wait", "where", "serve"}) {
    std::vector<std::string> args = {command};
    if (std::string(command) == "eval") args.insert(args.end(), {"node", "1"});
    if (std::string(command) == "wait") args.insert(args.end(), {"--page", "node"});
    test::Proc nowhere = editgate_in(none.path(), args);
    INFO(command);
    CHECK(nowhere.exit_code == 2);
    CHECK(nowhere.err.find("editgate " + std::string(command) + ": " + none.str() +
                           " is in no git repository, and editgate creates nothing outside one") == 0);
    check_plain(nowhere.err);
  }
  CHECK(test::count_entries(none.path()) == 0);
  CHECK_FALSE(test::fs::exists(test::state_of(none.path())));
}

TEST_CASE("cli: a gateway that was killed is recognised - no gateway is running, exit 2, one plain line", "[cli]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {}, true);
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page(wait_page(ws, "node-").at("page").as_string());
  const auto log = dir / ("debug/" + page + ".md");

  // Killed while an eval waits for its answer: the connection closes with nothing said.
  test::Proc during;
  std::thread cli([&] {
    during = editgate({"eval", "--root", dir.str(), "node", "await new Promise(r => setTimeout(r, 60000))"});
  });
  wait_file(log, [](const std::string& t) { return t.find("executing (0s)") != std::string::npos; });
  gw.stop(SIGKILL);
  cli.join();
  CHECK(during.exit_code == 2);
  CHECK(during.err.find("editgate eval: no gateway is running (the one serving " + dir.str() +
                        " stopped before it answered); start one with `editgate serve`") == 0);
  check_plain(during.err);

  // Its port file stays behind: every client says what it means.
  REQUIRE(test::fs::exists(test::state_of(dir.path()) / "port"));
  test::Proc e = editgate({"eval", "--root", dir.str(), "node", "1"});
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("editgate eval: no gateway is running (" + test::state_of(dir.path()).string() + "/port is left from one that "
                   "stopped without removing it: pid ") == 0);
  check_plain(e.err);

  test::Proc w = editgate({"wait", "--root", dir.str(), "--page", "node", "--job", "999", "--timeout", "5"});
  CHECK(w.exit_code == 2);  // not 124, as if the job still ran
  CHECK(w.err.find("editgate wait: no gateway is running (") == 0);
  check_plain(w.err);

  test::write_file(test::agents_of(dir.path()) / "inbox/fix.md", "notes.txt\n««« EDIT\n═══════ REPL\nnew\n»»» EDIT END\n");
  test::Proc inbox = editgate({"wait", "--root", dir.str(), "--inbox", "fix", "--timeout", "5"});
  CHECK(inbox.exit_code == 2);
  CHECK(inbox.err.find("editgate wait: no gateway is running (") == 0);
  check_plain(inbox.err);

  test::Proc p = editgate({"pages", "--root", dir.str()});
  CHECK(p.exit_code == 2);
  CHECK(p.err.find("editgate pages: no gateway is running (") == 0);
  check_plain(p.err);

  // The next gateway takes the workspace back; the port file is its own.
  client::Gateway next(dir.str());
  CHECK(std::stoi(test::read_file(test::state_of(dir.path()) / "port")) == next.port());
  CHECK(editgate({"pages", "--root", dir.str()}).exit_code == 0);
}

TEST_CASE("an ambiguous page name is ambiguous, listing the pages, at the gateway and in the command line", "[cli][pages]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  client::Ws agent(gw.port());
  agent.login(gw.cookie());
  FakePage a(gw.port()), b(gw.port());
  a.welcome();
  b.welcome();
  REQUIRE(a.name != b.name);
  const std::string bare = a.name.substr(0, a.name.rfind('-'));
  REQUIRE(b.name.rfind(bare + "-", 0) == 0);

  auto check_names = [&](const std::string& text) {
    INFO(text);
    CHECK(text.find(a.name) != std::string::npos);
    CHECK(text.find(b.name) != std::string::npos);
  };
  // The WebSocket ops that take a page.
  const json::object e = eval(agent, bare, "1").back();
  CHECK(e.at("reason") == "ambiguous");
  check_names(std::string(e.at("error").as_string()));
  for (const std::string& op : {R"({"op":"interrupt","page":")" + bare + R"("})",
                               R"({"op":"complete","page":")" + bare + R"(","code":"a."})",
                               R"({"op":"stdin","page":")" + bare + R"(","value":"x"})"}) {
    agent.send(op);
    const json::object r = obj(agent.until_done().back());
    INFO(op);
    CHECK(r.at("reason") == "ambiguous");
    check_names(std::string(r.at("error").as_string()));
  }
  // HTTP.
  const std::map<std::string, std::string> auth{{"Authorization", "Bearer " + gw.cookie()}};
  client::Response r = client::request(gw.port(), "POST", "/v1/eval", R"({"page":")" + bare + R"(","code":"1"})", auth);
  CHECK(r.status == 409);
  CHECK(obj(r.body).at("error") == "ambiguous");  // an HTTP error names its code in "error"
  // The full name is never ambiguous; a name nobody has is not_found.
  CHECK(eval(agent, "nobody", "1").back().at("reason") == "not_found");

  // The command line: eval through the gateway, wait from the files, at once.
  test::Proc ev = editgate({"eval", "--root", dir.str(), bare, "1"});
  CHECK(ev.exit_code == 2);
  CHECK(ev.err.find("editgate eval: ambiguous: '" + bare + "' names 2 live pages (") == 0);
  check_names(ev.err);
  // `wait` reads the pages' status files, which their own thread writes
  // after the pages connect: both must be there before it can see two.
  const auto status_of = [&](const std::string& name) { return test::agents_of(dir.path()) / "pages" / name / "status.json"; };
  for (int i = 0; i < 200 && !(std::filesystem::exists(status_of(a.name)) && std::filesystem::exists(status_of(b.name))); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(std::filesystem::exists(status_of(a.name)));
  REQUIRE(std::filesystem::exists(status_of(b.name)));
  test::Proc w = editgate({"wait", "--root", dir.str(), "--page", bare, "--timeout", "20"});
  CHECK(w.exit_code == 2);
  CHECK(w.err.find("editgate wait: ambiguous: '" + bare + "' names more than one page (") == 0);
  check_names(w.err);
}

TEST_CASE("cli: wait --inbox prints the failed blocks' diagnostics as apply does, not only the counts", "[cli][files]") {
  test::TempDir dir;
  test::write_file(dir / "notes.txt", "alpha\nbeta\ngamma\n");
  client::Gateway gw{dir.str()};
  const std::string message = "notes.txt\n««« EDIT\nbeta\n═══════ REPL\nBETA\n»»» EDIT END\n"
                              "notes.txt\n««« EDIT\ngamma  \ndelta\n═══════ REPL\nGAMMA\n»»» EDIT END\n";
  // What `check` says of the same blocks, against the same file.
  test::write_file(dir / "message.md", message);
  test::Proc check = editgate({"check", "--root", dir.str(), (dir / "message.md").string()});
  REQUIRE(check.exit_code == 1);
  const std::string failure = check.out.substr(check.out.find("notes.txt:", 1));
  const std::string diagnostic = failure.substr(0, failure.rfind("1 validated"));
  REQUIRE(diagnostic.find("failed (") != std::string::npos);
  test::fs::remove(dir / "message.md");

  test::write_file(test::agents_of(dir.path()) / "inbox/two.md", message);
  test::Proc w = editgate({"wait", "--root", dir.str(), "--inbox", "two", "--timeout", "20"});
  INFO(w.out << w.err);
  CHECK(w.exit_code == 1);
  CHECK(w.out.find("notes.txt:2: applied  block 1, response line 2") == 0);
  CHECK(w.out.find(diagnostic) != std::string::npos);
  CHECK(w.out.find("1 applied, 1 failed\n") != std::string::npos);
}

TEST_CASE("cli: stop ends the workspace's gateway and waits until it is gone, and says so when none runs", "[cli]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  const test::Proc stopped = editgate({"stop", "--root", dir.str()});
  CHECK(stopped.exit_code == 0);
  const std::string root = test::fs::canonical(dir.path()).string();
  CHECK(stopped.out == "stopped the gateway serving " + root + " (port " + std::to_string(gw.port()) + ")\n");
  // Gone when stop returns: its lock released, its port file removed, its process ended cleanly.
  CHECK_FALSE(test::fs::exists(test::state_of(dir.path()) / "port"));
  CHECK(gw.wait(5s) == 0);
  const test::Proc none = editgate({"stop", "--root", dir.str()});
  CHECK(none.exit_code == 0);
  CHECK(none.out == "no gateway serves " + root + ": nothing to stop\n");
}
