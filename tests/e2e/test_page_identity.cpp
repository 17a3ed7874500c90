// Who a page is, and how many there may be: an instance is taken back only
// with the secret the gateway gave it, no answer tells which ids exist, no
// page-door socket becomes the Node page, a burst of hellos makes no flood
// of logs, and page sockets never keep the agents out.
#include "pages.hpp"
#include "places.hpp"

#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/types.h>

using namespace pagetest;

namespace {

// The children of process `parent` (the gateway's Node page).
std::vector<pid_t> children(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : test::fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

std::size_t page_logs(const test::fs::path& dir) {
  std::size_t n = 0;
  if (!test::fs::exists(dir / "debug")) return 0;
  for (const auto& e : test::fs::directory_iterator(dir / "debug"))
    if (e.path().extension() == ".md") ++n;
  return n;
}

// The state of the page named `name` in the pages op ("" when it is not listed).
std::string state_of(client::Ws& ws, const std::string& name) {
  ws.send(R"({"op":"pages"})");
  const json::object reply = obj(ws.until_done().back());
  for (const auto& p : reply.at("pages").as_array())
    if (p.at("page") == name.c_str()) return std::string(p.at("state").as_string());
  return "";
}

}  // namespace

TEST_CASE("probing instance ids tells nothing: a live id, a wrong secret and an unknown id all get a new instance",
          "[pages][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  FakePage page(gw.port());
  page.welcome();
  CHECK(page.id.size() == 12);
  CHECK(page.secret.size() == 32);
  CHECK(page.name == "fake-page-" + page.id);

  // The answers to a live id without its secret, with a wrong one, and to an
  // id nobody has: the same kind of answer, a new instance of its own.
  for (const auto& [id, secret] : std::vector<std::pair<std::string, std::string>>{
           {page.id, ""}, {page.id, std::string(32, '0')}, {"0123456789ab", ""}, {"1a2b", ""}}) {
    FakePage probe(gw.port(), id, secret);
    const json::object answer = probe.next();
    REQUIRE(answer.at("type") == "welcome");
    CHECK(answer.at("id") != page.id.c_str());
    CHECK(answer.at("id") != id.c_str());
    CHECK(answer.at("secret").as_string().size() == 32);
  }

  // Only the holder of the secret hears that its instance is in use ...
  FakePage twin(gw.port(), page.id, page.secret);
  const json::object refused = twin.next();
  CHECK(refused.at("type") == "refused");
  CHECK(refused.at("error") == "in_use");

  // ... and takes it back once the other socket is gone, with no new secret.
  page.ws.close();
  for (int i = 0; i < 100; ++i) {
    FakePage again(gw.port(), page.id, page.secret);
    const json::object answer = again.next();
    if (answer.at("type") == "refused" && answer.at("error") == "in_use") {
      std::this_thread::sleep_for(20ms);
      continue;
    }
    REQUIRE(answer.at("type") == "welcome");
    CHECK(answer.at("id") == page.id.c_str());
    CHECK_FALSE(answer.contains("secret"));
    break;
  }
}

TEST_CASE("a page keeps its instance across a gateway restart, and only with its secret", "[pages][security]") {
  test::TempDir dir;
  std::string id, secret, name;
  {
    client::Gateway gw(dir.str());
    FakePage page(gw.port());
    page.welcome();
    id = page.id;
    secret = page.secret;
    name = page.name;
  }
  // The gateway keeps hashes, never the secret itself.
  const std::string keys = test::read_file(test::state_of(dir.path()) / "page-keys");
  CHECK(keys.find(id + " browser ") != std::string::npos);
  CHECK(keys.find(secret) == std::string::npos);

  // A key whose log is gone is dropped when the next gateway starts.
  test::write_file(test::state_of(dir.path()) / "page-keys", keys + "0123456789ab browser " + std::string(64, 'f') + "\n");

  client::Gateway gw(dir.str());
  CHECK(test::read_file(test::state_of(dir.path()) / "page-keys") == keys);
  FakePage wrong(gw.port(), id, std::string(secret.rbegin(), secret.rend()));
  wrong.welcome();
  CHECK(wrong.id != id);
  FakePage back(gw.port(), id, secret);
  back.welcome();
  CHECK(back.id == id);
  CHECK(back.name == name);
}

TEST_CASE_METHOD(NodeGateway, "no page-door socket becomes the Node page, even while its child is dead",
                 "[pages][security]") {
  const std::string id(page.at("id").as_string());
  const std::vector<pid_t> kids = children(gw.pid());
  REQUIRE(kids.size() == 1);
  REQUIRE(::kill(kids[0], SIGKILL) == 0);
  std::string state = state_of(ws, name);
  for (int i = 0; i < 200 && state != "disconnected"; ++i) {
    std::this_thread::sleep_for(5ms);
    state = state_of(ws, name);
  }
  REQUIRE(state == "disconnected");

  // The gateway restarts the child a second after it died. Meanwhile pages
  // from loopback origins claim its id, saying they are Node pages: each one
  // is a new instance of its own (origins of their own: no rate limit here).
  for (int i = 0; i < 30; ++i) {
    FakePage claim(gw.port(), id, std::string(32, 'a'), "http://localhost:" + std::to_string(20000 + i), "node");
    const json::object answer = claim.next();
    REQUIRE(answer.at("type") == "welcome");
    REQUIRE(answer.at("id") != id.c_str());
    std::this_thread::sleep_for(50ms);
  }
  // The real Node page came back to its log, and runs the agents' code.
  state.clear();
  for (int i = 0; i < 200 && (state.empty() || state == "disconnected"); ++i) {
    std::this_thread::sleep_for(25ms);
    state = state_of(ws, name);
  }
  CHECK(state == "idle");
  const json::object reply = eval(ws, name, "typeof process.pid").back();
  CHECK(reply.at("value") == "number");
  CHECK(children(gw.pid()).size() == 1);
}

TEST_CASE_METHOD(NodeGateway, "no page socket passes for the gateway's own pages, nor skips approval by naming "
                 "another workspace", "[pages][security]") {
  // The Node page has no web origin: "", which no page-door socket has.
  ws.send(R"({"op":"pages"})");
  const json::object listed = obj(ws.until_done().back());
  for (const auto& p : listed.at("pages").as_array())
    if (p.at("kind") == "node") CHECK(p.at("origin") == "");
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "editgate"}}, "/v1/page") == 403);
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "http://evil.example"}}, "/v1/page") == 403);
  // A socket whose URL names another workspace is let through, unapproved,
  // only to be refused at its hello, whatever the hello says: no workspace,
  // or this gateway's.
  for (const char* origin : {"editgate", "http://evil.example"}) {
    for (const json::value& named : {json::value(nullptr), json::value(gw.workspace())}) {
      client::Ws sock(gw.port(), {{"Origin", origin}}, "/v1/page?workspace=0000000000000000");
      sock.send(json::serialize(json::object{{"type", "hello"}, {"name", "Sly"}, {"url", "http://evil.example/"},
                                             {"title", "Sly"}, {"workspace", named}}));
      const auto answer = sock.read();
      REQUIRE(answer);
      CHECK(obj(*answer).at("type") == "refused");
      CHECK(obj(*answer).at("error") == "wrong_workspace");
    }
  }
  ws.send(R"({"op":"pages"})");
  CHECK(obj(ws.until_done().back()).at("pages").as_array().size() == 1);
}

TEST_CASE("a burst of hellos from one origin is rate-limited and makes no flood of logs or commits",
          "[pages][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  int welcomed = 0, limited = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 60; ++i) {
    FakePage p(gw.port());
    const json::object answer = p.next();
    if (answer.at("type") == "welcome") ++welcomed;
    if (answer.at("type") == "refused" && answer.at("error") == "rate_limited") ++limited;
  }
  // A burst of 10, then one every 2 s: however slowly the hellos went.
  const auto took = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
  const int allowed = 10 + static_cast<int>(took.count() / 2) + 1;
  CHECK(welcomed <= allowed);
  CHECK(welcomed + limited == 60);
  std::this_thread::sleep_for(500ms);  // the committer's work, if any was left
  CHECK(page_logs(dir.path()) <= static_cast<std::size_t>(welcomed));
  const std::string count = test::git(dir.path(), {"rev-list", "--count", "HEAD"}).out;
  CHECK(std::stoi(count.empty() ? "0" : count) <= welcomed + 1);  // and the first commit, if the gateway made one
  // Another origin has a bucket of its own.
  FakePage other(gw.port(), "", "", "http://localhost:9998");
  other.welcome();
}

TEST_CASE("page sockets cannot keep the agents out: a cap per origin, and places of their own", "[pages][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  auto open = [&](const std::string& origin, std::vector<std::unique_ptr<client::Ws>>& held) {
    try {
      held.push_back(std::make_unique<client::Ws>(gw.port(), std::map<std::string, std::string>{{"Origin", origin}},
                                                   "/v1/page"));
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  std::vector<std::unique_ptr<client::Ws>> held;
  int opened = 0;
  for (int i = 0; i < 140; ++i) opened += open("http://127.0.0.1:3000", held) ? 1 : 0;
  CHECK(opened == 32);
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "http://127.0.0.1:3000"}}, "/v1/page") == 429);
  // Pages from many origins fill the pages' places, not the agents'.
  for (int i = 0; i < 140; ++i) open("http://127.0.0.1:" + std::to_string(4000 + i), held);
  CHECK(held.size() == 172);

  CHECK(client::request(gw.port(), "GET", "/v1/health").status == 200);
  client::Ws agent(gw.port());
  agent.login(gw.cookie());
  agent.send(R"({"op":"pages","id":"p"})");
  CHECK(obj(agent.until_done().back()).at("status") == json::array{"done"});
}

TEST_CASE("a larger --pages-per-origin lets half of that many of one origin's pages connect at once", "[pages]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {"--pages-per-origin", "100"});
  std::vector<std::unique_ptr<client::Ws>> held;
  int opened = 0;
  for (int i = 0; i < 60; ++i) {
    try {
      held.push_back(std::make_unique<client::Ws>(
          gw.port(), std::map<std::string, std::string>{{"Origin", "http://127.0.0.1:3000"}}, "/v1/page"));
      ++opened;
    } catch (const std::exception&) {
    }
  }
  CHECK(opened == 50);
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "http://127.0.0.1:3000"}}, "/v1/page") == 429);
}

TEST_CASE("an origin makes at most its cap of page instances in a run; coming back to one is not counted",
          "[pages][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {"--pages-per-origin", "3"});
  std::string id, secret, name;
  for (int i = 0; i < 3; ++i) {
    FakePage p(gw.port());
    p.welcome();
    if (i == 0) id = p.id, secret = p.secret, name = p.name;
  }
  // Past the cap (well within the burst of the rate limit): refused, and no log made.
  for (int i = 0; i < 5; ++i) {
    FakePage over(gw.port());
    const json::object answer = over.next();
    CHECK(answer.at("type") == "refused");
    CHECK(answer.at("error") == "too_many_pages");
  }
  CHECK(page_logs(dir.path()) == 3);

  // The first page comes back to its instance with its secret, as often as it likes.
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 100; ++i) {
      FakePage back(gw.port(), id, secret);
      const json::object answer = back.next();
      if (answer.at("type") == "refused" && answer.at("error") == "in_use") {  // its old socket, not gone yet
        std::this_thread::sleep_for(20ms);
        continue;
      }
      REQUIRE(answer.at("type") == "welcome");
      CHECK(answer.at("id") == id.c_str());
      CHECK(answer.at("name") == name.c_str());
      break;
    }
  }
  CHECK(page_logs(dir.path()) == 3);
  // Another origin has a cap of its own.
  FakePage other(gw.port(), "", "", "http://localhost:9998");
  other.welcome();
}

TEST_CASE("a disconnected page forgotten from memory comes back with its secret to its own log",
          "[pages][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {"--pages-kept", "2"});
  client::Ws agent(gw.port());
  agent.login(gw.cookie());
  std::string id, secret, name, log;
  {
    FakePage first(gw.port());
    first.welcome();
    id = first.id, secret = first.secret, name = first.name, log = first.log;
  }
  std::string state = state_of(agent, name);
  for (int i = 0; i < 200 && state != "disconnected"; ++i) {
    std::this_thread::sleep_for(5ms);
    state = state_of(agent, name);
  }
  REQUIRE(state == "disconnected");

  // Two live pages fill the list: the disconnected one is forgotten (the
  // pages op and the registry no longer list it), its log stays.
  FakePage second(gw.port());
  second.welcome();
  FakePage third(gw.port());
  third.welcome();
  CHECK(state_of(agent, name).empty());
  CHECK(state_of(agent, second.name) == "idle");
  CHECK(state_of(agent, third.name) == "idle");
  CHECK(test::read_file(dir / "debug.md").find(name) == std::string::npos);
  REQUIRE(test::fs::exists(dir / log));

  // Live pages are never forgotten, nor refused: the list holds them all.
  FakePage fourth(gw.port());
  fourth.welcome();
  CHECK(state_of(agent, second.name) == "idle");

  // A wrong secret does not bring it back; its own does, to its own log.
  FakePage wrong(gw.port(), id, std::string(32, '0'));
  wrong.welcome();
  CHECK(wrong.id != id);
  FakePage back(gw.port(), id, secret);
  back.welcome();
  CHECK(back.id == id);
  CHECK(back.name == name);
  CHECK(back.log == log);
  CHECK(back.secret.empty());
  CHECK(state_of(agent, name) == "idle");
  CHECK(test::read_file(dir / log).find(name + " reconnected at") != std::string::npos);
  CHECK(page_logs(dir.path()) == 5);
}
