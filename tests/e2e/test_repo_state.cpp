// Nothing the repository carries steers the gateway. A teammate's commit
// can put any path in the working tree (`git add -f` passes ignores, and
// symlinks are committed as symlinks); a dev server hands out any file of
// the workspace, .git/ included. Here: every path an earlier editgate kept
// its state in, committed as files and as symlinks, pulled while a gateway
// runs, cloned then served, and served through `editgate mcp`; a static
// server's view of the workspace tried as a bearer and as a sign-in token;
// `editgate mcp` outside any repository. Real gateways, the git command line.
#include "pages.hpp"
#include "services/state_dir.hpp"
#include "places.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

using namespace pagetest;

namespace {

namespace fs = test::fs;

// A cookie, a page secret and a page id the teammate knows.
const std::string known_cookie = "0123456789abcdef0123456789abcdef";
const std::string known_id = "0123456789ab";

std::string pwned_block(const std::string& name) {
  return "Notes.\n\n" + name + "\n««« EDIT\n═══════ REPL\npwned\n»»» EDIT END\n";
}

// The teammate's commit: every state path of the old layout under
// .editgate/, forced past ignores — files that would steer a gateway that
// read them, and symlinks that would lead its writes outside. The inbox is
// a folder holding a message, or (`inbox_link`) a link to a shared folder
// where any local user can drop one.
void teammate_commits_state(const fs::path& clone, const fs::path& outside, const fs::path& shared,
                            bool inbox_link = false) {
  const fs::path s = clone / ".editgate";
  test::write_file(s / "cookie", known_cookie + "\n");
  test::write_file(s / "port", "1\n");
  test::write_file(s / "server.json", R"({"port":1,"pid":1})" "\n");
  test::write_file(s / "lock", "pid 1, http://127.0.0.1:1/\n");
  test::write_file(s / "page-keys", known_id + " node " + std::string(64, 'a') + "\n");
  test::write_file(s / "tail-journal", "editgate tail journal 1\ndebug/x.md\n```js\nrequire('fs').writeFileSync('" +
                                           (outside / "ran").string() + "', 'ran')\n```\n");
  if (inbox_link)
    fs::create_directory_symlink(shared, s / "inbox");
  else
    test::write_file(s / "inbox/notes.md", pwned_block("pwned-inbox.txt"));
  test::write_file(s / "pages/node/status.json", R"({"state":"idle"})");
  fs::create_symlink(outside / "program.cjs", s / "node-page.cjs");
  fs::create_symlink(outside / "id", s / "node-page.id");
  fs::create_directory_symlink(outside, s / "outbox");
  fs::create_symlink(outside / "serve.log", s / "serve.log");
  test::git_ok(clone, {"add", "-f", ".editgate"});
  test::git_ok(clone, {"commit", "-qm", "tidy up"});
  test::git_ok(clone, {"push", "-q", "origin", "HEAD:main"});
}

// What a gateway that read the committed state would have left in files.
void nothing_steered_files(const fs::path& ws, const fs::path& outside) {
  CHECK_FALSE(fs::exists(ws / "pwned-inbox.txt"));
  CHECK_FALSE(fs::exists(ws / "pwned-shared.txt"));
  CHECK_FALSE(fs::exists(outside / "ran"));
  CHECK(test::read_file(outside / "program.cjs") == "mine\n");
  CHECK(test::read_file(outside / "id") == "mine\n");
  CHECK(test::read_file(outside / "serve.log") == "mine\n");
  const std::string keys = test::read_file(test::state_of(ws) / "page-keys");
  CHECK(keys.find(known_id) == std::string::npos);
}

// And in the doors: the committed cookie opens nothing.
void nothing_steered(const fs::path& ws, const fs::path& outside, const client::Gateway& gw) {
  CHECK(gw.cookie() != known_cookie);
  CHECK(client::request(gw.port(), "GET", "/v1/pages", "", {{"Authorization", "Bearer " + known_cookie}}).status == 401);
  nothing_steered_files(ws, outside);
}

struct Team {
  test::TempDir top;
  fs::path origin = top / "origin.git", mine = top / "mine", theirs = top / "theirs", outside = top / "outside",
           shared = top / "shared";
  Team() {
    test::git_ok(top.path(), {"init", "-q", "--bare", "-b", "main", origin.string()});
    test::git_ok(top.path(), {"clone", "-q", origin.string(), theirs.string()});
    test::write_file(theirs / "app.js", "console.log('app')\n");
    test::git_ok(theirs, {"add", "app.js"});
    test::git_ok(theirs, {"commit", "-qm", "app"});
    test::git_ok(theirs, {"push", "-q", "origin", "HEAD:main"});
    test::git_ok(top.path(), {"clone", "-q", origin.string(), mine.string()});
    fs::create_directories(outside);
    fs::create_directories(shared);
    for (const char* f : {"program.cjs", "id", "serve.log"}) test::write_file(outside / f, "mine\n");
  }
};

// Drops a message where the committed symlink led, as another local user
// could in a shared folder; the gateway must not take it as its inbox.
void drop_in_shared(const fs::path& shared) {
  test::write_file(shared / "notes.md", pwned_block("pwned-shared.txt"));
}

}  // namespace

TEST_CASE("a teammate's commit of every old state path, files and symlinks, pulled while a gateway runs, steers nothing",
          "[trust][state]") {
  Team t;
  client::Gateway gw(t.mine.string(), {}, true);
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  const std::string page(wait_page(ws, "node-").at("page").as_string());
  teammate_commits_state(t.theirs, t.outside, t.shared);
  test::git_ok(t.mine, {"pull", "-q", "--no-rebase", "origin", "main"});
  REQUIRE(fs::is_symlink(t.mine / ".editgate/node-page.cjs"));
  drop_in_shared(t.shared);
  // The inbox's watcher would have applied a message within its 150 ms
  // settle: an eval after a second proves the worker had time and is alive.
  std::this_thread::sleep_for(1s);
  auto replies = eval(ws, page, "6 * 7");
  CHECK(replies.back().at("value") == 42);
  nothing_steered(t.mine, t.outside, gw);
}

TEST_CASE("a clone holding a committed .editgate/ is served as any clone: said once, never read", "[trust][state]") {
  Team t;
  teammate_commits_state(t.theirs, t.outside, t.shared, true);
  test::TempDir victim;
  const fs::path clone = victim / "clone";
  test::git_ok(victim.path(), {"clone", "-q", t.origin.string(), clone.string()});
  drop_in_shared(t.shared);
  std::string first_page;
  {
    client::Gateway gw(clone.string(), {}, true);
    client::Ws ws(gw.port());
    ws.login(gw.cookie());
    first_page = wait_page(ws, "node-").at("page").as_string();
    CHECK(first_page.find(known_id) == std::string::npos);
    CHECK(eval(ws, first_page, "1 + 1").back().at("value") == 2);
    nothing_steered(clone, t.outside, gw);
    gw.stop();
    const std::string err = gw.err();
    CHECK(count(err, "/.editgate is not read") == 1);
  }
  // The eval an `editgate eval` sends goes to this gateway, not to the committed port.
  client::Gateway again(clone.string(), {}, true);
  client::Ws ws(again.port());
  ws.login(again.cookie());
  wait_page(ws, "node-");
  auto e = test::run({EDITGATE_BIN, "eval", "--root", clone.string(), "node", "'here'"});
  INFO(e.err);
  CHECK(e.exit_code == 0);
  CHECK(e.out == "\"here\"\n");
  nothing_steered(clone, t.outside, again);
}

TEST_CASE("`editgate mcp` in a clone holding a committed .editgate/ starts a gateway that reads none of it", "[trust][state][mcp]") {
  Team t;
  teammate_commits_state(t.theirs, t.outside, t.shared);
  test::git_ok(t.mine, {"pull", "-q", "--no-rebase", "origin", "main"});
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
      R"("clientInfo":{"name":"test","version":"1"}}})" "\n";
  // Standard input stays open while the gateway starts (the bridge stops at
  // its end, dropping what is in flight): 8 s, ample on a loaded machine.
  auto m = test::run({"sh", "-c", "cd \"$1\" && (cat; sleep 8) | \"$2\" mcp", "sh", t.mine.string(), EDITGATE_BIN},
                     init);
  INFO(m.err);
  CHECK(m.out.find(R"("id":1,"result")") != std::string::npos);
  auto published = services::read_published(t.mine.string());
  REQUIRE(published.has_value());
  CHECK(published->cookie != known_cookie);
  // Its log is in the state folder, private; the committed symlink kept its target.
  CHECK(fs::exists(test::state_of(t.mine) / "serve.log"));
  CHECK(test::read_file(t.outside / "serve.log") == "mine\n");
  CHECK_FALSE(fs::exists(t.outside / "ran"));
  // The gateway `mcp` started outlives it: it answers, then is stopped here through its own op.
  client::Ws ws(published->port);
  ws.login(published->cookie);
  const std::string page(wait_page(ws, "node-").at("page").as_string());
  CHECK(page.find(known_id) == std::string::npos);
  CHECK(eval(ws, page, "1 + 1").back().at("value") == 2);
  nothing_steered_files(t.mine, t.outside);
  ws.send(R"({"op":"shutdown","id":"bye","cookie":")" + published->cookie + R"("})");
  ws.read();
  // Stopping makes the last commits and ends the Node page: up to 20 s on a loaded machine.
  for (int i = 0; i < 800 && services::gateway_running(t.mine.string()); ++i) std::this_thread::sleep_for(25ms);
  CHECK_FALSE(services::gateway_running(t.mine.string()));
}

TEST_CASE("a static server of the workspace root, .git included, hands out nothing that opens a door", "[security][state]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  // Through `editgate mcp`, whose gateway writes a log with a live sign-in URL.
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
      R"("clientInfo":{"name":"test","version":"1"}}})" "\n";
  auto m = test::run({"sh", "-c", "cd \"$1\" && (cat; sleep 8) | \"$2\" mcp", "sh", dir.str(), EDITGATE_BIN}, init);
  REQUIRE(m.out.find(R"("id":1,"result")") != std::string::npos);
  auto published = services::read_published(dir.str());
  REQUIRE(published.has_value());
  const unsigned short port = published->port;
  {
    // Every kind of file the gateway writes: a log and its commits, the
    // agents' status files and markers, an inbox answer.
    client::Ws ws(port);
    ws.login(published->cookie);
    const std::string page(wait_page(ws, "node-").at("page").as_string());
    eval(ws, page, "'x'.repeat(3)");
    test::write_file(test::agents_of(dir.path()) / "inbox/a.md", test::block("a.txt", {}, {"a"}));
    auto w = test::run({EDITGATE_BIN, "wait", "--root", dir.str(), "--inbox", "a", "--timeout", "20"});
    CHECK(w.exit_code == 0);
  }
  // The controls: the real secrets work, so the refusals below mean something.
  CHECK(client::request(port, "GET", "/v1/pages", "", {{"Authorization", "Bearer " + published->cookie}}).status == 200);
  const std::string log = test::read_file(test::state_of(dir.path()) / "serve.log");
  std::smatch sign_in;
  REQUIRE(std::regex_search(log, sign_in, std::regex("\\?token=([0-9a-f]{32})")));

  // Every file a server of the root hands out, whole and as each hex run in it.
  std::set<std::string> candidates;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::string text = test::read_file(e.path());
    std::string whole = text;
    while (!whole.empty() && (whole.back() == '\n' || whole.back() == '\r')) whole.pop_back();
    if (whole.size() <= 256) candidates.insert(whole);
    // Each window of 32 hex digits, in longer runs too (commit ids are 40).
    for (std::size_t i = 0; i + 32 <= text.size(); ++i) {
      bool all_hex = true;
      for (std::size_t k = 0; k < 32 && all_hex; ++k) all_hex = std::isxdigit(static_cast<unsigned char>(text[i + k]));
      if (all_hex) candidates.insert(text.substr(i, 32));
    }
  }
  INFO(files << " files, " << candidates.size() << " candidates");
  CHECK(files > 20);
  CHECK(candidates.count(published->cookie) == 0);
  CHECK(candidates.count(sign_in[1].str()) == 0);
  // Nor the Node page's secret, which takes its instance back.
  std::string node_id, node_secret;
  std::istringstream(test::read_file(test::state_of(dir.path()) / "node-page.id")) >> node_id >> node_secret;
  REQUIRE(node_secret.size() == 32);
  CHECK(candidates.count(node_secret) == 0);
  for (const std::string& c : candidates) {
    // What a header can carry: a bearer is one token of printable ASCII.
    if (c.empty() || std::any_of(c.begin(), c.end(), [](char ch) { return ch <= ' ' || ch > '~'; })) continue;
    INFO(c);
    CHECK(client::request(port, "GET", "/v1/pages", "", {{"Authorization", "Bearer " + c}}).status == 401);
    if (c.size() == 32) CHECK(client::request(port, "GET", "/?token=" + c).status == 401);
  }
  // The sign-in token was spent by nobody: the dashboard still takes it once.
  CHECK(client::request(port, "GET", "/?token=" + sign_in[1].str()).status == 303);
  client::Ws ws(port);
  ws.login(published->cookie);
  ws.send(R"({"op":"shutdown","id":"bye","cookie":")" + published->cookie + R"("})");
  ws.read();
  for (int i = 0; i < 800 && services::gateway_running(dir.str()); ++i) std::this_thread::sleep_for(25ms);
}

TEST_CASE("`editgate mcp` outside any repository creates nothing and tells its client why", "[state][mcp]") {
  test::TempDir dir;
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
      R"("clientInfo":{"name":"test","version":"1"}}})" "\n";
  auto m = test::run({"sh", "-c", "cd \"$1\" && exec \"$2\" mcp", "sh", dir.str(), EDITGATE_BIN}, init);
  INFO(m.out << m.err);
  CHECK(m.exit_code == 0);
  const json::object reply = obj(m.out.substr(0, m.out.find('\n')));
  CHECK(reply.at("id") == 1);
  const std::string message(reply.at("error").at("message").as_string());
  CHECK(message.find(dir.str() + " is in no git repository, and editgate creates nothing outside one") !=
        std::string::npos);
  CHECK(message.find("--root") != std::string::npos);
  CHECK(test::count_entries(dir.path()) == 0);
  CHECK_FALSE(fs::exists(test::state_of(dir.path())));
}
