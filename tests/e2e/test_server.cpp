// `editgate serve` end to end: a real gateway on 127.0.0.1 port 0, real
// clients (Beast, and curl as an independent one), real files and commits.
#include "client.hpp"
#include "places.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <cerrno>
#include <signal.h>
#include <sys/stat.h>

#include <random>
#include <thread>

using namespace test;
namespace json = boost::json;

namespace {

json::object obj(const std::string& text) { return json::parse(text).as_object(); }

std::string str(const json::value& v) { return std::string(v.as_string()); }

// git's output without its last newline.
std::string git1(const fs::path& dir, std::vector<std::string> args) {
  std::string out = git_ok(dir, std::move(args));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A workspace with two committed files.
struct Workspace {
  TempDir dir;
  Workspace() {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    write_file(dir / "a.txt", "alpha\nbeta\ngamma\n");
    write_file(dir / "b.txt", "one\ntwo\nthree\n");
    git_ok(dir.path(), {"add", "a.txt", "b.txt"});
    git_ok(dir.path(), {"commit", "-q", "-m", "start"});
  }
  std::string head() const { return git1(dir.path(), {"rev-parse", "HEAD"}); }
  std::size_t commits() const { return std::stoul(git_ok(dir.path(), {"rev-list", "--count", "HEAD"})); }
};

const std::string block_a = block("a.txt", {"beta"}, {"BETA"});
const std::string block_b = block("b.txt", {"two"}, {"TWO"});

// What a test's refusal must leave: the same files, the same HEAD.
struct Untouched {
  const Workspace& ws;
  std::string head, a, b;
  explicit Untouched(const Workspace& w)
      : ws(w), head(w.head()), a(read_file(w.dir / "a.txt")), b(read_file(w.dir / "b.txt")) {}
  void check() const {
    CHECK(ws.head() == head);
    CHECK(read_file(ws.dir / "a.txt") == a);
    CHECK(read_file(ws.dir / "b.txt") == b);
  }
};

// Waits (bounded) until the branch has `n` commits: a commit made after
// a client went away has nobody to report to.
bool wait_commits(const Workspace& ws, std::size_t n) {
  for (int i = 0; i < 500; ++i) {
    if (ws.commits() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("serve publishes its port and a private cookie in the per-user state folder, nothing in the working tree", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  const fs::path state = test::state_of(ws.dir.path());
  struct stat st {};
  REQUIRE(::stat(state.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((state / "cookie").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(gw.cookie().size() == 32);
  CHECK(std::stoi(read_file(state / "port")) == gw.port());
  CHECK(gw.out().find("http://127.0.0.1:" + std::to_string(gw.port()) + "/") != std::string::npos);
  CHECK(git_ok(ws.dir.path(), {"status", "--porcelain", "--ignored"}).empty());
  CHECK_FALSE(fs::exists(ws.dir / ".editgate"));
  // `editgate where` names each place, and the gateway that runs.
  auto where = run({EDITGATE_BIN, "where", "--root", ws.dir.str(), "--format", "json"});
  REQUIRE(where.exit_code == 0);
  auto places = obj(where.out);
  CHECK(places["running"] == true);
  CHECK(str(places["url"]) == "http://127.0.0.1:" + std::to_string(gw.port()) + "/");
  CHECK(str(places["cookie"]) == (state / "cookie").string());
  CHECK(str(places["inbox"]) == fs::canonical(ws.dir.path()).string() + "/.git/editgate/inbox");
  // Its text says how to open the dashboard of a gateway nobody watched start.
  auto where_text = run({EDITGATE_BIN, "where", "--root", ws.dir.str()});
  CHECK(where_text.out.find("\ndashboard    `editgate dashboard` prints a URL that signs a browser in") !=
        std::string::npos);
  auto cookie_path = run({EDITGATE_BIN, "where", "--root", ws.dir.str(), "cookie"});
  CHECK(cookie_path.out == (state / "cookie").string() + "\n");
  auto unknown = run({EDITGATE_BIN, "where", "--root", ws.dir.str(), "cookies"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("editgate where: no place 'cookies'; the places: state, cookie,") == 0);

  auto health = client::request(gw.port(), "GET", "/v1/health");
  CHECK(health.status == 200);
  auto h = obj(health.body);
  CHECK(str(h["status"]) == "ok");
  CHECK(str(h["workspace_id"]).size() == 16);

  // server.json: what a client needs to connect, and to tell a stale one.
  REQUIRE(::stat((state / "server.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto server = obj(read_file(state / "server.json"));
  const std::string base = "127.0.0.1:" + std::to_string(gw.port());
  CHECK(server["port"].to_number<int>() == gw.port());
  CHECK(server["pid"].to_number<int>() == gw.pid());
  CHECK(str(server["http"]) == "http://" + base + "/");
  CHECK(str(server["ws"]) == "ws://" + base + "/ws");
  CHECK(str(server["protocol"]) == "1.0");
  CHECK(str(server["workspace_root"]) == fs::canonical(ws.dir.path()).string());
  CHECK(server["workspace_id"] == h["workspace_id"]);
  CHECK(server["nonce"] == h["nonce"]);

  // One gateway per workspace: the second says who holds it.
  auto second = run({EDITGATE_BIN, "serve", "--port", "0", "--root", ws.dir.str()});
  CHECK(second.exit_code == 2);
  CHECK(second.err.find("another gateway serves this workspace (pid " + std::to_string(gw.pid())) !=
        std::string::npos);

  const std::string cookie = gw.cookie();
  CHECK(gw.stop(SIGINT) == 0);
  CHECK(!fs::exists(state / "port"));
  CHECK(!fs::exists(state / "server.json"));
  // The cookie stays: clients configured with it keep working after a restart.
  client::Gateway again(ws.dir.str());
  CHECK(again.cookie() == cookie);
  // A new start, a new nonce; a killed gateway's file names a pid that is gone.
  auto next = obj(read_file(state / "server.json"));
  CHECK(next["nonce"] != server["nonce"]);
  CHECK(next["workspace_id"] == server["workspace_id"]);
  const int pid = again.pid();
  again.stop(SIGKILL);
  auto stale = obj(read_file(state / "server.json"));
  CHECK(stale["pid"].to_number<int>() == pid);
  CHECK(::kill(pid, 0) == -1);
  CHECK(errno == ESRCH);
}

TEST_CASE("POST /v1/edits answers each block while the body is still arriving", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  const std::size_t before = ws.commits();
  client::EditStream s(gw.port(), gw.cookie(), "?agent=claude&session=s1");
  s.send("Here is the change:\n\n" + block_a);
  REQUIRE(s.status() == 200);
  // Block 1's line arrives before block 2 is even sent, and its file is written.
  auto first = s.line();
  REQUIRE(first);
  auto b1 = obj(*first).at("block").as_object();
  CHECK(str(b1["path"]) == "a.txt");
  CHECK(str(b1["status"]) == "applied");
  CHECK(read_file(ws.dir / "a.txt") == "alpha\nBETA\ngamma\n");
  // Block 2 split inside a marker's multi-byte character.
  const std::string rest = "\nand\n" + block_b;
  std::size_t cut = rest.find("\xC2\xAB") + 1;
  s.send(rest.substr(0, cut));
  s.send(rest.substr(cut));
  s.end();
  auto lines = s.rest();
  REQUIRE(lines.size() == 2);
  CHECK(str(obj(lines[0]).at("block").at("path")) == "b.txt");
  auto done = obj(lines[1]);
  CHECK(done.at("status").as_array() == json::array{"done"});
  CHECK(done.at("counts").at("applied").as_int64() == 2);
  CHECK(str(done.at("session")) == "s1");
  REQUIRE(done.at("commit").is_string());
  // One commit for the whole request, by the agent.
  CHECK(ws.commits() == before + 1);
  CHECK(ws.head() == str(done.at("commit")));
  CHECK(git1(ws.dir.path(), {"log", "-1", "--format=%an"}) == "claude");
  CHECK(git1(ws.dir.path(), {"show", "--name-only", "--format=", "HEAD"}) == "a.txt\nb.txt");
}

TEST_CASE("the same body split into random chunks gives the same results", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  const std::string body = "intro\n" + block_a + "\n" + block("a.txt", {"nope"}, {"x"}) + "\n" + block_b +
                           "\n" + block("c.txt", {}, {"created"}) + "\ntail, and an unfinished\n" +
                           "a.txt\n\xC2\xAB\xC2\xAB\xC2\xAB EDIT\ngamma\n";
  auto collect = [&](const std::vector<std::string>& pieces) {
    client::EditStream s(gw.port(), gw.cookie(), "?dry_run=true");
    for (const std::string& p : pieces) s.send(p);
    s.end();
    return s.rest();
  };
  const auto whole = collect({body});
  REQUIRE(whole.size() == 6);  // five blocks (the last incomplete), then done
  CHECK(str(obj(whole[4]).at("block").at("reason")) == "incomplete_block");
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::vector<std::string> pieces;
    std::size_t at = 0;
    while (at < body.size()) {
      std::size_t n = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
      pieces.push_back(body.substr(at, n));
      at += n;
    }
    auto split = collect(pieces);
    REQUIRE(split.size() == whole.size());
    for (std::size_t i = 0; i + 1 < whole.size(); ++i) CHECK(split[i] == whole[i]);
  }
}

TEST_CASE("a dry run over HTTP validates and writes nothing", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  Untouched before(ws);
  client::EditStream s(gw.port(), gw.cookie(), "?dry_run=1");
  s.send(block_a + block("new.txt", {}, {"x"}));
  s.end();
  auto lines = s.rest();
  REQUIRE(lines.size() == 3);
  CHECK(str(obj(lines[0]).at("block").at("status")) == "validated");
  CHECK(str(obj(lines[1]).at("block").at("status")) == "validated");
  auto done = obj(lines[2]);
  CHECK(done.at("dry_run").as_bool());
  CHECK(done.at("commit").is_null());
  before.check();
  CHECK(!fs::exists(ws.dir / "new.txt"));
}

TEST_CASE("a client that disconnects mid-stream keeps its complete blocks, committed", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  const std::size_t before = ws.commits();
  {
    client::EditStream s(gw.port(), gw.cookie(), "?agent=cut");
    s.send(block_a);
    REQUIRE(s.line());
    // Half of block 2, then the connection drops.
    s.send(block_b.substr(0, block_b.size() / 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s.abort();
  }
  REQUIRE(wait_commits(ws, before + 1));
  CHECK(read_file(ws.dir / "a.txt") == "alpha\nBETA\ngamma\n");
  CHECK(read_file(ws.dir / "b.txt") == "one\ntwo\nthree\n");
  CHECK(git1(ws.dir.path(), {"show", "--name-only", "--format=%an", "HEAD"}) == "cut\n\na.txt");
  CHECK(git_ok(ws.dir.path(), {"status", "--porcelain"}).empty());
  CHECK(gw.err().find("editgate: POST /v1/edits, agent cut, session ") != std::string::npos);
  CHECK(gw.err().find(": 1 applied, committed " + ws.head().substr(0, 12) + " (cut off: io_error)") !=
        std::string::npos);
}

TEST_CASE("POST /v1/edits is the edit op: its query is refused as the WebSocket's edit is, with the same code and text",
          "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  Untouched before(ws);
  const std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + gw.cookie()}};
  client::Ws c(gw.port());
  c.login(gw.cookie());
  // Each refusal over HTTP: its code and message; on the WebSocket "code: message".
  auto alike = [&](const std::string& query, const std::string& ws_params, const std::string& code) {
    INFO(query);
    auto r = client::request(gw.port(), "POST", "/v1/edits?" + query, block_a, auth);
    CHECK(r.status == 400);
    const json::object http = obj(r.body);
    CHECK(str(http.at("error")) == code);
    c.send(R"({"op":"edit","id":"q","text":"x",)" + ws_params + "}");
    const json::object reply = obj(c.until_done().back());
    CHECK(str(reply.at("reason")) == code);
    CHECK(str(reply.at("error")) == code + ": " + str(http.at("message")));
    CHECK(http.contains("unknown") == reply.contains("unknown"));
    if (http.contains("unknown")) CHECK(http.at("unknown") == reply.at("unknown"));
  };
  alike("dryrun=1&agent=a", R"("dryrun":1,"agent":"a")", "bad_request");
  alike("dry_run=maybe", R"("dry_run":"maybe")", "bad_request");
  alike("fuzz=lots", R"("fuzz":"lots")", "bad_request");
  alike("agent=..%2Fx", R"("agent":"../x")", "bad_request");
  // The body is the text: a `text` in the query is no second one.
  auto twice = client::request(gw.port(), "POST", "/v1/edits?text=x", block_a, auth);
  CHECK(twice.status == 400);
  CHECK(str(obj(twice.body).at("error")) == "bad_request");
  before.check();
  // describe lists the route with the op.
  c.send(R"({"op":"describe","id":"d"})");
  CHECK(obj(c.until_done().back()).at("ops").at("edit").at("http") == "POST /v1/edits");
}

TEST_CASE("curl streams a chunked upload and reads NDJSON", "[server][curl]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  write_file(ws.dir.path().parent_path() / (ws.dir.path().filename().string() + ".md"), block_a + block_b);
  const std::string body_file = ws.dir.str() + ".md";
  auto r = run({"curl", "-sS", "-N", "-H", "Authorization: Bearer " + gw.cookie(), "-H",
                "Transfer-Encoding: chunked", "-H", "Content-Type: text/markdown", "--data-binary", "@" + body_file,
                "http://127.0.0.1:" + std::to_string(gw.port()) + "/v1/edits?agent=curl"});
  fs::remove(body_file);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  REQUIRE(lines.size() == 3);
  CHECK(str(obj(lines[0]).at("block").at("status")) == "applied");
  CHECK(str(obj(lines[1]).at("block").at("status")) == "applied");
  CHECK(obj(lines[2]).at("counts").at("applied").as_int64() == 2);
  CHECK(read_file(ws.dir / "b.txt") == "one\nTWO\nthree\n");
  CHECK(git1(ws.dir.path(), {"log", "-1", "--format=%an"}) == "curl");
}

TEST_CASE("HTTP attack probes are refused with a named error and change nothing", "[server][security]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str(), {"--header-timeout", "300"});
  Untouched before(ws);
  const std::string port = std::to_string(gw.port());
  auto refused = [&](const client::Response& r, unsigned status, const std::string& code) {
    CHECK(r.status == status);
    CHECK(str(obj(r.body).at("error")) == code);
  };
  const std::string body = block_a;
  refused(client::request(gw.port(), "POST", "/v1/edits", body), 401, "unauthorized");
  refused(client::request(gw.port(), "POST", "/v1/edits", body, {{"Authorization", "Bearer 0123"}}), 401,
          "unauthorized");
  refused(client::request(gw.port(), "POST", "/v1/edits", body,
                          {{"Authorization", "Bearer " + std::string(32, '0')}}),
          401, "unauthorized");
  const std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + gw.cookie()}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(auth.begin(), auth.end());
    return extra;
  };
  refused(client::request(gw.port(), "POST", "/v1/edits", body, with({{"Origin", "http://evil.example"}})), 403,
          "forbidden_origin");
  refused(client::request(gw.port(), "POST", "/v1/edits", body, with({{"Host", "evil.example:" + port}})), 403,
          "host_not_allowed");
  refused(client::request(gw.port(), "GET", "/v1/health", "", {{"Host", "attacker.test:" + port}}), 403,
          "host_not_allowed");
  refused(client::request(gw.port(), "POST", "/v1/edits?dryrun=1", body, auth), 400, "bad_request");
  // Each unknown name, in the answer's "unknown" as an op's reply names them.
  auto typos = client::request(gw.port(), "POST", "/v1/edits?dryrun=1&agnet=me&agent=a", body, auth);
  CHECK(typos.status == 400);
  CHECK(obj(typos.body).at("unknown") == json::array{"dryrun", "agnet"});
  // All of them at once, before any value is judged: an unknown name given
  // twice and a bad value of a known one do not hide the others.
  auto twice = client::request(gw.port(), "POST", "/v1/edits?dryrun=1&agent=../x&agnet=me&dryrun=0", body, auth);
  CHECK(twice.status == 400);
  CHECK(obj(twice.body).at("unknown") == json::array{"dryrun", "agnet"});
  refused(client::request(gw.port(), "POST", "/v1/edits?fuzz=lots", body, auth), 400, "bad_request");
  refused(client::request(gw.port(), "POST", "/v1/edits?agent=a%2", body, auth), 400, "bad_request");
  refused(client::request(gw.port(), "GET", "/v1/edits", "", auth), 405, "method_not_allowed");
  refused(client::request(gw.port(), "GET", "/v1/nothing", "", auth), 404, "not_found");

  // A Content-Length over the limit is refused before any byte of the body is read.
  std::string huge = "POST /v1/edits HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " +
                     gw.cookie() + "\r\nContent-Length: 100000000\r\n\r\n" + block_a;
  auto big = client::raw(gw.port(), huge);
  CHECK(big.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(big.find("\"error\":\"payload_too_large\"") != std::string::npos);

  // A head larger than the limit.
  std::string fat = "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Pad: " + std::string(20000, 'a') +
                    "\r\n\r\n";
  auto header = client::raw(gw.port(), fat);
  CHECK(header.rfind("HTTP/1.1 431", 0) == 0);
  CHECK(header.find("header_too_large") != std::string::npos);

  // A head that never ends: the server answers 408 when the time is up.
  auto slow = client::raw(gw.port(), "POST /v1/edits HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: ");
  CHECK(slow.rfind("HTTP/1.1 408", 0) == 0);
  CHECK(slow.find("\"error\":\"request_timeout\"") != std::string::npos);

  // Garbage instead of HTTP.
  auto junk = client::raw(gw.port(), "\x16\x03\x01 hello\r\n\r\n");
  CHECK(junk.rfind("HTTP/1.1 400", 0) == 0);

  before.check();
  // The gateway is still serving.
  CHECK(client::request(gw.port(), "GET", "/v1/health").status == 200);
}

TEST_CASE("a streamed body that stalls is cut off with a summary, its blocks committed", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str(), {"--body-timeout", "300"});
  client::EditStream s(gw.port(), gw.cookie());
  s.send(block_a);
  REQUIRE(s.line());
  auto done = s.line(std::chrono::seconds(10));
  REQUIRE(done);
  auto d = obj(*done);
  CHECK(str(d.at("reason")) == "request_timeout");
  CHECK(d.at("status").as_array() == json::array{"done", "error"});
  CHECK(d.at("commit").is_string());
  CHECK(ws.head() == str(d.at("commit")));
  // The body was not read whole: the connection ends, so nothing the client
  // sends later is read as a request of its own.
  CHECK(s.rest().empty());
  CHECK(s.closed_by_server());
}

TEST_CASE("a streamed body past the edit-text limit is cut off there, its blocks committed, and the connection ends",
          "[server][security]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  client::EditStream s(gw.port(), gw.cookie());
  s.send(block_a);
  REQUIRE(s.line());
  // 65 MiB of prose after the block: the op ends at 64 MiB while the body
  // goes on, so what follows is never read as a request of its own.
  std::string prose;
  while (prose.size() < (1u << 20)) prose += "Some prose between blocks, which the parser reads and drops.\n";
  for (int mib = 0; mib < 65; ++mib) s.send(prose);
  // The parser says where it stopped, as a failed block, then the summary.
  auto cut = s.line(std::chrono::seconds(30));
  REQUIRE(cut);
  CHECK(str(obj(*cut).at("block").at("reason")) == "too_large");
  auto done = s.line();
  REQUIRE(done);
  auto d = obj(*done);
  CHECK(str(d.at("reason")) == "payload_too_large");
  CHECK(d.at("status").as_array() == json::array{"done", "error"});
  CHECK(d.at("commit").is_string());
  CHECK(ws.head() == str(d.at("commit")));
  CHECK(s.rest().empty());
  CHECK(s.closed_by_server());
}

TEST_CASE("GET /v1/history lists editgate's commits", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  {
    client::EditStream s(gw.port(), gw.cookie(), "?agent=hist&session=h1");
    s.send(block_a);
    s.end();
    s.rest();
  }
  auto r = client::request(gw.port(), "GET", "/v1/history?limit=5", "",
                           {{"Authorization", "Bearer " + gw.cookie()}});
  REQUIRE(r.status == 200);
  auto commits = obj(r.body).at("commits").as_array();
  REQUIRE(commits.size() == 1);
  CHECK(str(commits[0].at("agent")) == "hist");
  CHECK(str(commits[0].at("session")) == "h1");
  CHECK(client::request(gw.port(), "GET", "/v1/history").status == 401);
}

TEST_CASE("history's limit and brief: fewer commits, each cut to what a reader scans", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  for (const char* session : {"b1", "b2"}) {
    client::EditStream s(gw.port(), gw.cookie(), std::string("?agent=brief&session=") + session);
    s.send(session == std::string("b1") ? block_a : block_b);
    s.end();
    s.rest();
  }
  const std::map<std::string, std::string> auth{{"Authorization", "Bearer " + gw.cookie()}};
  auto whole = client::request(gw.port(), "GET", "/v1/history?limit=1", "", auth);
  auto brief = client::request(gw.port(), "GET", "/v1/history?limit=1&brief=true", "", auth);
  REQUIRE(whole.status == 200);
  REQUIRE(brief.status == 200);
  const json::array commits = obj(brief.body).at("commits").as_array();
  REQUIRE(commits.size() == 1);
  const json::object& c = commits[0].as_object();
  CHECK(c.size() == 5);
  CHECK(str(c.at("agent")) == "brief");
  CHECK(str(c.at("kind")) == "edit");
  CHECK(str(c.at("commit")) == ws.head());
  CHECK(c.contains("time"));
  CHECK(c.contains("summary"));
  CHECK(obj(brief.body).at("next_before").is_string());  // the first edit is still older
  CHECK(brief.body.size() * 2 < whole.body.size());
}

TEST_CASE("WebSocket: the auth handshake, and nothing before it", "[server][ws]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str(), {"--auth-timeout", "300"});
  {
    client::Ws c(gw.port());
    std::string session = c.login(gw.cookie());
    CHECK(session.size() == 12);
  }
  {  // /ws is the same door; the cookie file's content, newline and all, is the cookie.
    client::Ws c(gw.port(), {}, "/ws");
    const std::string file = read_file(test::state_of(ws.dir.path()) / "cookie");
    REQUIRE(file == gw.cookie() + "\n");
    CHECK(c.login(file).size() == 12);
    c.send(R"({"op":"health","id":"h"})");
    CHECK(str(obj(*c.read())["id"]) == "h");
  }
  {  // White space around the cookie is not part of it; anything else is.
    client::Ws c(gw.port(), {}, "/ws");
    CHECK(c.login(" \t" + gw.cookie() + "\r\n").size() == 12);
  }
  {
    client::Ws c(gw.port(), {}, "/ws");
    c.read();
    c.send(R"({"type":"auth","cookie":")" + gw.cookie() + R"(x"})");
    CHECK(str(obj(*c.read())["type"]) == "auth_error");
  }
  {  // The wrong cookie: auth_error, then the server closes.
    client::Ws c(gw.port());
    CHECK(c.read()->find("auth-required") != std::string::npos);
    c.send(R"({"type":"auth","cookie":"0123456789abcdef0123456789abcdef"})");
    auto e = obj(*c.read());
    CHECK(str(e["type"]) == "auth_error");
    CHECK(str(e["reason"]) == "unauthorized");
    CHECK(!c.read());
  }
  {  // An op before auth is not run: it is a failed auth.
    client::Ws c(gw.port());
    c.read();
    c.send(R"({"op":"shutdown","cookie":")" + gw.cookie() + R"("})");
    CHECK(str(obj(*c.read())["type"]) == "auth_error");
    CHECK(!c.read());
  }
  {  // Silence after the upgrade.
    client::Ws c(gw.port());
    c.read();
    auto e = obj(*c.read());
    CHECK(str(e["type"]) == "auth_error");
    CHECK(str(e["reason"]) == "request_timeout");
  }
  // Browser handshakes from elsewhere, and rebinding, never upgrade.
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "https://evil.example"}}) == 403);
  CHECK(client::ws_refused_status(gw.port(), {{"Host", "evil.example:" + std::to_string(gw.port())}}) == 403);
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "http://127.0.0.1:" + std::to_string(gw.port())}}) == 101);
  CHECK(client::request(gw.port(), "GET", "/v1/health").status == 200);
}

TEST_CASE("WebSocket ops: describe, health, edit, streamed edits, context, history", "[server][ws]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  client::Ws c(gw.port());
  const std::string session = c.login(gw.cookie());

  c.send(R"({"op":"describe","id":"d1"})");
  auto d = obj(*c.read());
  CHECK(str(d["id"]) == "d1");
  CHECK(d["status"].as_array() == json::array{"done"});
  for (const char* op : {"describe", "health", "edit", "edit-begin", "edit-chunk", "edit-end", "context", "history",
                         "shutdown"})
    CHECK(d["ops"].as_object().contains(op));
  CHECK(d["ops"].at("edit").at("params").as_array() == json::array{"text"});
  CHECK(str(d["versions"].at("protocol")) == "1.0");

  c.send(R"({"op":"health","id":7,"session":"mine"})");
  auto h = obj(*c.read());
  CHECK(h["id"].as_int64() == 7);
  CHECK(str(h["session"]) == "mine");
  CHECK(str(h["workspace_id"]).size() == 16);

  // edit: a block message per block, then done with the commit.
  c.send(json::serialize(json::object{{"op", "edit"}, {"id", "e1"}, {"text", block_a + block("a.txt", {"zzz"}, {"y"})}}));
  auto replies = c.until_done();
  REQUIRE(replies.size() == 3);
  CHECK(str(obj(replies[0]).at("block").at("status")) == "applied");
  CHECK(str(obj(replies[1]).at("block").at("reason")) == "anchor_not_found");
  auto done = obj(replies[2]);
  CHECK(str(done["id"]) == "e1");
  CHECK(done["status"].as_array() == json::array{"done"});
  CHECK(ws.head() == str(done["commit"]));
  CHECK(git1(ws.dir.path(), {"log", "-1", "--format=%(trailers:key=Editgate-Session,valueonly)"}) == session);

  // Streamed: each chunk's complete blocks come back before the end. Every
  // request has one final message, the begin and a chunk that completes no
  // block too: a client that waits for "done" is never left waiting.
  c.send(R"({"op":"edit-begin","id":"s1","agent":"streamer"})");
  auto begun = obj(*c.read());
  CHECK(str(begun["id"]) == "s1");
  CHECK(str(begun["edit"]) == "s1");
  CHECK(begun["status"].as_array() == json::array{"done"});
  c.send(json::serialize(json::object{{"op", "edit-chunk"}, {"id", "s1"}, {"text", block_b.substr(0, 10)}}));
  auto half = obj(*c.read());
  CHECK(half["status"].as_array() == json::array{"done"});
  CHECK(half["completed"].as_int64() == 0);
  c.send(json::serialize(json::object{{"op", "edit-chunk"}, {"id", "s1"}, {"text", block_b.substr(10)}}));
  auto rest = c.until_done();
  REQUIRE(rest.size() == 2);
  auto blk = obj(rest[0]);
  CHECK(str(blk["id"]) == "s1");
  CHECK(str(blk.at("block").at("path")) == "b.txt");
  CHECK(!blk.contains("status"));
  CHECK(obj(rest[1])["completed"].as_int64() == 1);
  CHECK(read_file(ws.dir / "b.txt") == "one\nTWO\nthree\n");
  c.send(R"({"op":"edit-end","id":"s1"})");
  auto end = obj(c.until_done().back());
  CHECK(end["counts"].at("applied").as_int64() == 1);
  CHECK(git1(ws.dir.path(), {"log", "-1", "--format=%an"}) == "streamer");
  c.send(R"({"op":"edit-end","id":"s1"})");
  CHECK(str(obj(*c.read())["reason"]) == "not_found");

  // context: a declared set makes other files not_in_context, and adds them.
  c.send(R"({"op":"context","action":"add","files":["a.txt"]})");
  auto ctx = obj(*c.read());
  CHECK(ctx["context"].as_array() == json::array{"a.txt"});
  c.send(json::serialize(json::object{{"op", "edit"}, {"text", block("b.txt", {"TWO"}, {"2"})}}));
  auto nic = c.until_done();
  CHECK(str(obj(nic[0]).at("block").at("status")) == "not_in_context");
  CHECK(obj(nic[1])["files_auto_added"].as_array() == json::array{"b.txt"});
  c.send(R"({"op":"context","action":"list"})");
  CHECK(obj(*c.read())["context"].as_array() == json::array{"a.txt", "b.txt"});
  c.send(R"({"op":"context","action":"remove","files":["b.txt"]})");
  CHECK(obj(*c.read())["context"].as_array() == json::array{"a.txt"});

  c.send(R"({"op":"history","limit":10})");
  auto hist = obj(*c.read());
  REQUIRE(hist["commits"].as_array().size() >= 2);
  CHECK(str(hist["commits"].as_array()[0].at("agent")) == "streamer");

  // A dry run through the WebSocket writes nothing.
  const std::string head = ws.head();
  c.send(json::serialize(json::object{{"op", "edit"}, {"dry_run", true}, {"text", block("a.txt", {"BETA"}, {"b"})}}));
  auto dry = c.until_done();
  CHECK(str(obj(dry[0]).at("block").at("status")) == "validated");
  CHECK(ws.head() == head);
}

TEST_CASE("WebSocket errors get a named reply and the connection lives on", "[server][ws][security]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  Untouched before(ws);
  client::Ws c(gw.port());
  c.login(gw.cookie());
  auto reason_of = [&](const std::string& msg, bool binary = false) {
    c.send(msg, binary);
    auto r = obj(*c.read());
    CHECK(r["status"].as_array() == json::array{"done", "error"});
    return str(r["reason"]);
  };
  CHECK(reason_of("{not json") == "bad_json");
  CHECK(reason_of("[1,2]") == "bad_json");
  CHECK(reason_of(R"({"op":"eval-all-the-things"})") == "unknown_op");
  CHECK(reason_of(R"({"id":"x"})") == "missing_param");
  CHECK(reason_of(R"({"op":"edit"})") == "missing_param");
  // An op that takes dry_run refuses an unknown name whole: dryrun is not dry_run.
  c.send(R"({"op":"edit","text":"x","dryrun":true,"id":"u"})");
  auto extra = obj(c.until_done().back());
  CHECK(str(extra["reason"]) == "bad_request");
  CHECK(extra["unknown"].as_array() == json::array{"dryrun"});
  c.send(R"({"op":"health","verbose":true,"id":"v"})");  // any other op ignores it, and names it
  auto named = obj(c.until_done().back());
  CHECK(named["status"].as_array() == json::array{"done"});
  CHECK(named["unknown"].as_array() == json::array{"verbose"});
  CHECK(reason_of(R"({"op":"edit","text":5})") == "bad_request");
  CHECK(reason_of(R"({"op":"edit","text":"x","agent":"a b"})") == "bad_request");
  CHECK(reason_of(R"({"op":"context","action":"explode"})") == "bad_request");
  CHECK(reason_of(R"({"op":"edit-chunk","id":"nope","text":"x"})") == "not_found");
  CHECK(reason_of(R"({"op":"shutdown","cookie":"wrong"})") == "unauthorized");
  CHECK(reason_of(R"({"op":"health"})", true) == "bad_json");
  // 17 MiB in one message: discarded as it arrives, answered, survived.
  std::string huge = R"({"op":"edit","text":")" + std::string(17u << 20, 'x') + R"("})";
  CHECK(reason_of(huge) == "payload_too_large");
  c.send(R"({"op":"health","id":"after"})");
  CHECK(str(obj(*c.read())["id"]) == "after");
  before.check();
}

TEST_CASE("the shutdown op and SIGTERM stop the gateway cleanly", "[server]") {
  SECTION("shutdown op") {
    Workspace ws;
    client::Gateway gw(ws.dir.str());
    client::Ws c(gw.port());
    c.login(gw.cookie());
    c.send(R"({"op":"shutdown","id":"bye","cookie":")" + gw.cookie() + R"("})");
    auto r = obj(*c.read());
    CHECK(str(r["value"]) == "ok");
    CHECK(gw.wait() == 0);
    CHECK(!fs::exists(test::state_of(ws.dir.path()) / "port"));
  }
  SECTION("SIGTERM after clients went away without a goodbye: no waiting on them") {
    Workspace ws;
    client::Gateway gw(ws.dir.str());
    {
      client::Ws c(gw.port());
      c.login(gw.cookie());
      c.send(R"({"op":"health"})");
      REQUIRE(c.read());
    }  // dropped without a close frame
    {
      client::EditStream s(gw.port(), gw.cookie());
      s.send(block_a);
      REQUIRE(s.line());
      s.abort();
    }
    // Well inside the 5 s grace after which open connections are cut.
    auto t0 = std::chrono::steady_clock::now();
    CHECK(gw.stop(SIGTERM, std::chrono::seconds(3)) == 0);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  }
  SECTION("SIGTERM with a stream open: its blocks are committed and reported") {
    Workspace ws;
    client::Gateway gw(ws.dir.str());
    client::EditStream s(gw.port(), gw.cookie());
    s.send(block_a);
    REQUIRE(s.line());
    client::Ws c(gw.port());
    c.login(gw.cookie());
    c.send(R"({"op":"edit-begin","id":"w"})");
    REQUIRE(c.until_done().size() == 1);
    c.send(json::serialize(json::object{{"op", "edit-chunk"}, {"id", "w"}, {"text", block_b}}));
    REQUIRE(c.until_done().size() == 2);  // its block, and the chunk's end
    ::kill(gw.pid(), SIGTERM);
    auto done = obj(*s.line());
    CHECK(str(done["reason"]) == "shutting_down");
    CHECK(done["commit"].is_string());
    auto wmsg = c.read();
    REQUIRE(wmsg);
    INFO(*wmsg);
    auto wdone = obj(*wmsg);
    CHECK(str(wdone["id"]) == "w");
    CHECK(str(wdone["reason"]) == "shutting_down");
    CHECK(wdone["commit"].is_string());
    CHECK(gw.wait() == 0);
    CHECK(read_file(ws.dir / "a.txt") == "alpha\nBETA\ngamma\n");
    CHECK(read_file(ws.dir / "b.txt") == "one\nTWO\nthree\n");
    CHECK(git_ok(ws.dir.path(), {"status", "--porcelain"}).empty());
  }
}

TEST_CASE("slow and idle clients cannot hold the gateway", "[server][security]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str(), {"--header-timeout", "500"});
  {
    // 128 connections that never send a byte fill the gateway ...
    client::Idle idle(gw.port(), 128);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto full = client::request(gw.port(), "GET", "/v1/health");
    CHECK(full.status == 503);
    CHECK(str(obj(full.body).at("error")) == "too_many_connections");
    // ... until the header timeout frees their places.
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
    CHECK(client::request(gw.port(), "GET", "/v1/health").status == 200);
  }
}

TEST_CASE("edits are refused before anything is written while git is mid-merge", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  write_file(ws.dir / ".git/MERGE_HEAD", ws.head() + "\n");
  Untouched before(ws);
  auto r = client::request(gw.port(), "POST", "/v1/edits", block_a, {{"Authorization", "Bearer " + gw.cookie()}});
  CHECK(r.status == 409);
  CHECK(str(obj(r.body).at("error")) == "conflict");
  CHECK(obj(r.body).at("message").as_string().find("merge") != json::string::npos);
  before.check();
  // A dry run commits nothing, so it still runs.
  auto dry = client::request(gw.port(), "POST", "/v1/edits?dry_run=1", block_a,
                             {{"Authorization", "Bearer " + gw.cookie()}});
  CHECK(dry.status == 200);
  CHECK(dry.body.find("\"status\":\"validated\"") != std::string::npos);
  before.check();
}

TEST_CASE("WebSocket streamed edits: ids in use, the per-connection limit, context clear", "[server][ws]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  client::Ws c(gw.port());
  c.login(gw.cookie());
  c.send(R"({"op":"edit-begin","id":"x"})");
  c.send(R"({"op":"edit-begin","id":"x"})");
  CHECK(str(obj(*c.read())["edit"]) == "x");
  auto dup = obj(*c.read());
  CHECK(str(dup["reason"]) == "conflict");
  CHECK(str(dup["id"]) == "x");
  for (int i = 1; i < 16; ++i) {
    c.send(R"({"op":"edit-begin","id":"s)" + std::to_string(i) + R"("})");
    CHECK(obj(*c.read())["status"].as_array() == json::array{"done"});
  }
  c.send(R"({"op":"edit-begin","id":"one-too-many"})");
  auto over = obj(*c.read());
  CHECK(str(over["id"]) == "one-too-many");
  CHECK(str(over["reason"]) == "too_many_streams");
  c.send(R"({"op":"edit-end","id":"x"})");
  auto end = obj(c.until_done().back());
  CHECK(end["status"].as_array() == json::array{"done"});
  CHECK(end["summary"].as_string() == "no edit blocks found");
  CHECK(end["commit"].is_null());

  c.send(R"({"op":"context","action":"add","files":["a.txt"]})");
  CHECK(obj(*c.read())["declared"].as_bool());
  c.send(R"({"op":"context","action":"clear"})");
  auto cleared = obj(*c.read());
  CHECK(!cleared["declared"].as_bool());
  c.send(json::serialize(json::object{{"op", "edit"}, {"text", block_b}}));
  CHECK(str(obj(c.until_done()[0]).at("block").at("status")) == "applied");
}

TEST_CASE("serve --allow-origin lets one more browser origin in, and only it", "[server][security]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str(), {"--allow-origin", "http://localhost:3000"});
  const std::map<std::string, std::string> auth = {{"Authorization", "Bearer " + gw.cookie()}};
  auto with_origin = [&](const std::string& origin) {
    auto h = auth;
    h["Origin"] = origin;
    return client::request(gw.port(), "POST", "/v1/edits?dry_run=1", block_a, h).status;
  };
  CHECK(with_origin("http://localhost:3000") == 200);
  CHECK(with_origin("http://localhost:3001") == 403);
  CHECK(with_origin("http://127.0.0.1:" + std::to_string(gw.port())) == 200);
  CHECK(client::ws_refused_status(gw.port(), {{"Origin", "http://localhost:3000"}}) == 101);
  auto bad = run({EDITGATE_BIN, "serve", "--port", "0", "--root", ws.dir.str(), "--allow-origin", "localhost"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--allow-origin 'localhost' is not an origin") != std::string::npos);
}

TEST_CASE("an HTTP/1.0 client gets the NDJSON lines unchunked, to the end of the connection", "[server]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  const std::string body = block_a;
  auto reply = client::raw(gw.port(), "POST /v1/edits HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(gw.port()) +
                                          "\r\nAuthorization: Bearer " + gw.cookie() + "\r\nContent-Length: " +
                                          std::to_string(body.size()) + "\r\n\r\n" + body);
  REQUIRE(reply.rfind("HTTP/1.0 200", 0) == 0);
  CHECK(reply.find("Transfer-Encoding") == std::string::npos);
  std::string lines = reply.substr(reply.find("\r\n\r\n") + 4);
  CHECK(lines.rfind("{\"block\":{", 0) == 0);
  CHECK(lines.find("\"status\":[\"done\"]}\n") == lines.size() - 19);
  CHECK(read_file(ws.dir / "a.txt") == "alpha\nBETA\ngamma\n");
}

TEST_CASE("overlapping streams on one file: each agent's commit holds its own work", "[server][ws]") {
  Workspace ws;
  client::Gateway gw(ws.dir.str());
  client::Ws c(gw.port());
  c.login(gw.cookie());
  auto chunk = [&](const char* id, const std::string& text) {
    c.send(json::serialize(json::object{{"op", "edit-chunk"}, {"id", id}, {"text", text}}));
    auto replies = c.until_done();
    REQUIRE(replies.size() == 2);
    REQUIRE(str(obj(replies[0]).at("block").at("status")) == "applied");
  };
  c.send(R"({"op":"edit-begin","id":"A","agent":"alice"})");
  c.send(R"({"op":"edit-begin","id":"B","agent":"bob"})");
  REQUIRE(c.until_done().size() == 1);
  REQUIRE(c.until_done().size() == 1);
  chunk("A", block("a.txt", {"alpha"}, {"ALPHA"}));
  chunk("B", block("a.txt", {"beta"}, {"BETA"}));  // alice's first block is committed first
  chunk("A", block("a.txt", {"gamma"}, {"GAMMA"}));  // and bob's, before alice changes the file again
  c.send(R"({"op":"edit-end","id":"B"})");
  auto b = obj(c.until_done().back());
  c.send(R"({"op":"edit-end","id":"A"})");
  auto a = obj(c.until_done().back());
  CHECK(a["commits"].as_array().size() == 2);
  CHECK(b["commits"].as_array().size() == 1);
  CHECK(read_file(ws.dir / "a.txt") == "ALPHA\nBETA\nGAMMA\n");
  // No run's uncommitted edits pass for the user's: no earlier-state commit.
  CHECK(git1(ws.dir.path(), {"log", "--format=%an %s", "-3"}) ==
        "alice edit a.txt (1 applied)\nbob edit a.txt (1 applied)\nalice edit a.txt (1 applied)");
  CHECK(git1(ws.dir.path(), {"diff", "HEAD~1", "HEAD"}).find("+GAMMA") != std::string::npos);
  CHECK(git1(ws.dir.path(), {"diff", "HEAD~2", "HEAD~1"}).find("-beta\n+BETA") != std::string::npos);
  CHECK(git1(ws.dir.path(), {"diff", "HEAD~3", "HEAD~2"}).find("-alpha\n+ALPHA") != std::string::npos);
  CHECK(git_ok(ws.dir.path(), {"status", "--porcelain"}).empty());
}
