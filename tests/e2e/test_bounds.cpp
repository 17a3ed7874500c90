// Bounded resources at the gateway's doors: a WebSocket client that never
// reads, a page that floods its console, output that bypasses the console,
// descriptors a child must not inherit, and HTTP framing that cannot be
// trusted. Each against a real gateway on 127.0.0.1.
#include "pages.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <thread>

namespace json = boost::json;
using namespace std::chrono_literals;
using namespace pagetest;

namespace {

// A process's resident memory, from /proc.
std::size_t rss_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  FAIL("no VmRSS for " << pid);
  return 0;
}

// What each descriptor of a process points at (socket:[123], a path).
std::map<int, std::string> fds_of(pid_t pid) {
  std::map<int, std::string> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& e : test::fs::directory_iterator(dir)) {
    std::error_code ec;
    auto target = test::fs::read_symlink(e.path(), ec);
    if (!ec) out[std::stoi(e.path().filename().string())] = target.string();
  }
  return out;
}

// The gateway's child running `node`, waited for; not `other`.
pid_t node_child(pid_t gateway, pid_t other = -1) {
  for (int i = 0; i < 200; ++i) {
    for (const auto& task : test::fs::directory_iterator("/proc/" + std::to_string(gateway) + "/task")) {
      std::ifstream children(task.path() / "children");
      for (pid_t pid; children >> pid;) {
        std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
        std::string name;
        comm >> name;
        if (pid != other && name.rfind("node", 0) == 0) return pid;
      }
    }
    std::this_thread::sleep_for(25ms);
  }
  FAIL("the gateway has no node child");
  return -1;
}

std::string http_head(unsigned short port, const std::string& cookie, const std::string& framing) {
  return "POST /v1/edits HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nAuthorization: Bearer " + cookie +
         "\r\n" + framing + "\r\n";
}

}  // namespace

TEST_CASE("malformed HTTP framing gets the 400 JSON error, then the connection closes", "[server][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  const std::string body = "5\r\nhello\r\n0\r\n\r\n";
  for (const std::string& framing : {
           std::string("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
           std::string("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
           std::string("Content-Length: -1\r\n"),
           std::string("Content-Length: 99999999999999999999\r\n"),
           std::string("Content-Length: 5\r\nContent-Length: 6\r\n"),
           std::string("Content-Length: 5x\r\n"),
           std::string("Transfer-Encoding: gzip\r\n"),
           std::string("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
       }) {
    INFO(framing);
    const std::string reply = client::raw(gw.port(), http_head(gw.port(), gw.cookie(), framing) + body, 5s);
    REQUIRE(reply.rfind("HTTP/1.1 400", 0) == 0);
    CHECK(reply.find("Connection: close") != std::string::npos);
    const auto at = reply.find("\r\n\r\n");
    REQUIRE(at != std::string::npos);
    const json::object o = obj(reply.substr(at + 4));
    CHECK(o.at("error") == "bad_request");
    CHECK(o.at("message").as_string().size() > 0);
  }
  // A chunk that is not one, in an eval body: the same answer.
  const std::string eval = "POST /v1/eval HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(gw.port()) +
                           "\r\nAuthorization: Bearer " + gw.cookie() +
                           "\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
  const std::string reply = client::raw(gw.port(), eval, 5s);
  CHECK(reply.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(reply.find("\"error\":\"bad_request\"") != std::string::npos);
  CHECK(client::request(gw.port(), "GET", "/v1/health").status == 200);
}

TEST_CASE("a WebSocket client that sends and never reads stops being read, and gets every reply once it reads",
          "[server][ws][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  // Settle the gateway's memory with a first round trip.
  ws.send(R"({"op":"describe","id":"warm"})");
  ws.until_done();
  const std::size_t before = rss_bytes(gw.pid());

  // Each request is 8 KiB (its id comes back in the reply); 20,000 of them
  // would queue over 160 MiB of replies in a gateway that keeps reading.
  const std::string pad(8 * 1024, 'x');
  std::size_t sent = 0;
  bool stalled = false;
  for (; sent < 20'000; ++sent) {
    if (!ws.writable(2s)) {
      stalled = true;
      break;
    }
    ws.send(R"({"op":"describe","id":"r)" + std::to_string(sent) + "-" + pad + R"("})");
  }
  const std::size_t after = rss_bytes(gw.pid());
  const std::size_t grown = after > before ? after - before : 0;
  CHECK(stalled);
  CHECK(grown < (48u << 20));
  INFO("sent " << sent << " requests; the gateway grew by " << grown / 1024 << " KiB");

  // Nothing was lost: once the client reads, every request is answered.
  std::set<std::string> answered;
  while (answered.size() < sent) {
    auto m = ws.read(20s);
    REQUIRE(m);
    const json::object o = obj(*m);
    REQUIRE(o.contains("ops"));
    answered.insert(std::string(o.at("id").as_string()));
  }
  CHECK(answered.size() == sent);
}

TEST_CASE("replies piling up past the cap close the WebSocket with slow_client", "[server][ws][security]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  client::Ws ws(gw.port());
  ws.login(gw.cookie());
  // One request, read whole, owes the client over 64 MiB: its 1 MiB id
  // comes back with the message of each of its 80 blocks.
  std::string text;
  for (int i = 0; i < 80; ++i) text += test::block("missing-" + std::to_string(i) + ".txt", {"a"}, {"b"});
  ws.send(json::serialize(
      json::object{{"op", "edit"}, {"id", std::string(1u << 20, 'x')}, {"dry_run", true}, {"text", text}}));
  // The engine answers in arrival order: once another connection's history
  // is back, the edit's replies were queued.
  client::Ws other(gw.port());
  other.login(gw.cookie());
  other.send(R"({"op":"history","id":"h"})");
  other.until_done();
  std::size_t read = 0;
  while (ws.read(20s)) ++read;
  INFO("read " << read << " messages before the close");
  CHECK(ws.close_reason() == "slow_client");
  CHECK(read < 80);
  // The gateway carries on.
  other.send(R"({"op":"health","id":"h2"})");
  CHECK(obj(other.until_done().back()).contains("workspace_id"));
}

TEST_CASE("a console flood gives a bounded eval reply that says what it dropped, over HTTP and the WebSocket",
          "[pages][security]") {
  NodeGateway g;
  const std::map<std::string, std::string> auth{{"Authorization", "Bearer " + g.gw.cookie()}};
  // 20,000 lines of 1 KiB: 20 MiB of output.
  const std::string code = "for (let i = 0; i < 20000; i++) console.log(i + ' ' + 'z'.repeat(1024)); 'done'";
  const std::size_t before = rss_bytes(g.gw.pid());
  client::Response r = client::request(
      g.gw.port(), "POST", "/v1/eval",
      json::serialize(json::object{{"page", g.name}, {"code", code}, {"timeout", 60000}}), auth);
  REQUIRE(r.status == 200);
  // The kept 1 MiB is there twice: the out messages and their text joined as output.
  CHECK(r.body.size() < (5u << 19));
  const json::object o = obj(r.body);
  CHECK(o.at("value") == "done");
  const std::size_t kept = o.at("out").as_array().size();
  CHECK(kept > 0);
  CHECK(kept <= 1000);
  REQUIRE(o.contains("events_dropped"));
  CHECK(o.at("events_dropped").to_number<std::size_t>() == 20000 - kept);
  const std::size_t after = rss_bytes(g.gw.pid());
  CHECK((after > before ? after - before : 0) < (64u << 20));

  // The WebSocket eval: the same bound on its out messages.
  auto msgs = eval(g.ws, g.name, code);
  CHECK(msgs.size() == kept + 1);
  REQUIRE(msgs.back().contains("events_dropped"));
  CHECK(msgs.back().at("events_dropped").to_number<std::size_t>() == 20000 - kept);
  // The final output holds what the out messages carried, no more, and says it was cut.
  std::string streamed;
  for (std::size_t i = 0; i + 1 < msgs.size(); ++i) streamed += msgs[i].at("out").as_string();
  CHECK(msgs.back().at("output") == json::string(streamed));
  CHECK(streamed.size() <= (1u << 20) + 1000);
  CHECK(msgs.back().at("output_truncated") == true);

  // The log says so too.
  const std::string log = wait_file(g.log, [](const std::string& t) { return count(t, "more events were not kept") == 2; });
  CHECK(log.find("19999 z") == std::string::npos);
}

TEST_CASE("the Node page's process.stdout.write lands in its events, not on the gateway's streams", "[pages]") {
  NodeGateway g;
  // A marker no hex id the gateway prints (tokens, commits) can hold.
  auto msgs = eval(g.ws, g.name, "process.stdout.write('out-qzk7\\n'); process.stderr.write('err-qzk7'); 1");
  REQUIRE(msgs.size() == 3);
  // Each write keeps its own line end: the one without a newline gets none.
  CHECK(msgs[0].at("out") == "out-qzk7\n");
  CHECK(msgs[0].at("source") == "process.stdout");
  CHECK(msgs[1].at("out") == "err-qzk7");
  CHECK(msgs[1].at("source") == "process.stderr");
  CHECK(msgs[2].at("output") == "out-qzk7\nerr-qzk7");
  const std::string events = wait_file(g.dir / "debug" / (g.name + ".events.log"),
                                       [](const std::string& t) { return t.find("err-qzk7") != std::string::npos; });
  CHECK(events.find("process.stdout: out-qzk7") != std::string::npos);
  g.gw.stop();
  CHECK(g.gw.out().find("qzk7") == std::string::npos);
  CHECK(g.gw.err().find("qzk7") == std::string::npos);
}

TEST_CASE("the Node page's process holds stdio and its socket, none of the gateway's descriptors", "[pages][security]") {
  NodeGateway g;
  // A client connection open while the child starts again.
  client::Idle idle(g.gw.port(), 2);
  client::Ws other(g.gw.port());
  other.login(g.gw.cookie());
  const pid_t first = node_child(g.gw.pid());
  ::kill(first, SIGKILL);
  const pid_t child = node_child(g.gw.pid(), first);
  wait_page(g.ws, "node-");

  std::map<int, std::string> gateway = fds_of(g.gw.pid());
  std::set<std::string> shared;  // what the child may share: the gateway's stdio
  for (int fd : {0, 1, 2})
    if (gateway.count(fd)) shared.insert(gateway[fd]);
  // Everything else the gateway holds that has an identity in its name
  // (anon_inode:[eventpoll] of the gateway's and of node's look alike).
  std::set<std::string> owned;
  for (const auto& [fd, target] : gateway)
    if (!shared.count(target) && target.rfind("anon_inode:", 0) != 0) owned.insert(target);
  const std::map<int, std::string> fds = fds_of(child);
  REQUIRE(fds.count(3));
  CHECK(fds.at(3).rfind("socket:", 0) == 0);
  REQUIRE(fds.count(4));  // the interrupt channel
  CHECK(fds.at(4).rfind("socket:", 0) == 0);
  CHECK(fds.at(0) == "/dev/null");
  for (const auto& [fd, target] : fds) {
    INFO("the child's fd " << fd << " -> " << target);
    CHECK(!owned.count(target));
  }
  // A socket of the child's other than fd 3 and 4 would be the gateway's.
  for (const auto& [fd, target] : fds)
    if (fd != 3 && fd != 4) CHECK(target.rfind("socket:", 0) != 0);
}
