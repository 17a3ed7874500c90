// `editgate serve --push REMOTE` and the push op: a real gateway pushing
// to a local bare repository and to `git daemon` on 127.0.0.1 (started and
// stopped here), a remote whose branch moved on, and a remote that is down
// and comes up later. What arrived is read back with the git command line.
#include "client.hpp"
#include "support.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace test;
using namespace std::chrono_literals;
namespace json = boost::json;
namespace net = boost::asio;

namespace {

json::object obj(const std::string& text) { return json::parse(text).as_object(); }

std::string git1(const fs::path& dir, std::vector<std::string> args) {
  std::string out = git_ok(dir, std::move(args));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The bare repository's main, or "" while it has none.
std::string bare_main(const fs::path& bare) {
  Proc p = git(bare, {"rev-parse", "--verify", "-q", "refs/heads/main"});
  while (!p.out.empty() && p.out.back() == '\n') p.out.pop_back();
  return p.exit_code == 0 ? p.out : std::string();
}

bool eventually(const std::function<bool()>& ok, std::chrono::milliseconds wait = 20s) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    if (ok()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return ok();
}

// A port nobody listens on: bound, then closed.
unsigned short free_port() {
  net::io_context ioc;
  net::ip::tcp::acceptor a(ioc, {net::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

bool accepts(unsigned short port) {
  net::io_context ioc;
  net::ip::tcp::socket s(ioc);
  boost::system::error_code ec;
  s.connect({net::ip::make_address("127.0.0.1"), port}, ec);
  return !ec;
}

// `git daemon` serving the repositories under `base` on 127.0.0.1:port,
// pushes allowed; in a process group of its own, stopped with it.
class GitDaemon {
 public:
  GitDaemon(const fs::path& base, unsigned short port) {
    REQUIRE(run({"git", "daemon", "-h"}).err.find("usage: git daemon") != std::string::npos);
    std::vector<std::string> args = {"git", "daemon", "--reuseaddr", "--enable=receive-pack", "--export-all",
                                     "--base-path=" + base.string(), "--port=" + std::to_string(port),
                                     "--listen=127.0.0.1", base.string()};
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::setpgid(0, 0);
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
      ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp("git", argv.data());
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
    REQUIRE(eventually([port] { return accepts(port); }, 10s));
  }
  ~GitDaemon() {
    ::kill(-pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  GitDaemon(const GitDaemon&) = delete;
  GitDaemon& operator=(const GitDaemon&) = delete;

 private:
  pid_t pid_ = -1;
};

// A workspace with one commit on main, served with `extra` flags, an agent
// logged in; `base` holds a bare repository r.git for the remote.
struct Served {
  TempDir dir, base;
  fs::path bare;
  std::unique_ptr<client::Gateway> gw;
  std::unique_ptr<client::Ws> ws;
  explicit Served(std::function<std::vector<std::string>(Served&)> extra = {}) : bare(base / "r.git") {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    write_file(dir / "a.txt", "alpha\nbeta\n");
    git_ok(dir.path(), {"add", "a.txt"});
    git_ok(dir.path(), {"commit", "-q", "-m", "start"});
    git_ok(base.path(), {"init", "-q", "--bare", "-b", "main", "r.git"});
    gw = std::make_unique<client::Gateway>(dir.str(), extra ? extra(*this) : std::vector<std::string>{});
    ws = std::make_unique<client::Ws>(gw->port());
    ws->login(gw->cookie());
  }
  std::string head() const { return git1(dir.path(), {"rev-parse", "HEAD"}); }
  json::object call(json::object msg) {
    ws->send(json::serialize(msg));
    return obj(ws->until_done(30s).back());
  }
  // An edit, answered and committed.
  std::string edit(const std::string& from, const std::string& to) {
    json::object done = call({{"op", "edit"}, {"text", block("a.txt", {from}, {to})}});
    REQUIRE(done.at("status") == json::array{"done"});
    return std::string(done.at("commit").as_string());
  }
};

}  // namespace

TEST_CASE("serve --push: an edit's commit reaches a local bare repository, and the push op and watch tell it",
          "[server][push]") {
  Served s([](Served& self) { return std::vector<std::string>{"--push", self.bare.string()}; });
  client::Ws watcher(s.gw->port());
  watcher.login(s.gw->cookie());
  watcher.send(R"({"op":"watch","id":"w"})");

  const std::string commit = s.edit("beta", "BETA");
  CHECK(commit == s.head());
  REQUIRE(eventually([&] { return bare_main(s.bare) == s.head(); }));
  // The watcher hears of the push that carried it.
  bool heard = false;
  while (!heard) {
    auto m = watcher.read(20s);
    REQUIRE(m);
    json::object msg = obj(*m);
    if (!msg.contains("event")) continue;
    json::object e = msg.at("event").as_object();
    if (e.at("type") == "push") {
      json::object push = e.at("push").as_object();
      heard = push.at("ok") == true && push.at("commit") == json::value(commit);
      if (heard) CHECK(push.at("ref") == "refs/heads/main");
    }
  }
  CHECK(s.gw->err().find("pushed refs/heads/main to " + s.bare.string()) != std::string::npos);

  // The op asks the remote now: it has the commit already.
  json::object done = s.call({{"op", "push"}, {"id", "p"}});
  REQUIRE(done.at("status") == json::array{"done"});
  CHECK(done.at("up_to_date") == true);
  CHECK(done.at("commit") == json::value(s.head()));
  CHECK(done.at("ref") == "refs/heads/main");
  // Over HTTP, as the table routes it.
  auto r = client::request(s.gw->port(), "POST", "/v1/push", "{}",
                           {{"Authorization", "Bearer " + s.gw->cookie()}, {"Content-Type", "application/json"}});
  CHECK(r.status == 200);
  CHECK(obj(r.body).at("commit") == json::value(s.head()));
}

TEST_CASE("push op: no_remote on a gateway started without --push", "[server][push]") {
  Served s;
  json::object failed = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(failed.at("reason") == "no_remote");
  auto r = client::request(s.gw->port(), "POST", "/v1/push", "{}",
                           {{"Authorization", "Bearer " + s.gw->cookie()}, {"Content-Type", "application/json"}});
  CHECK(r.status == 404);
  CHECK(obj(r.body).at("error") == "no_remote");
  CHECK(bare_main(s.bare).empty());
}

TEST_CASE("serve --push: commits reach git daemon on 127.0.0.1 over git://", "[server][push]") {
  const unsigned short port = free_port();
  Served s([port](Served&) {
    return std::vector<std::string>{"--push", "git://127.0.0.1:" + std::to_string(port) + "/r.git"};
  });
  GitDaemon daemon(s.base.path(), port);
  s.edit("beta", "one");
  s.edit("one", "two");
  json::object done = s.call({{"op", "push"}, {"id", "p"}});
  REQUIRE(done.at("status") == json::array{"done"});
  CHECK(done.at("commit") == json::value(s.head()));
  CHECK(bare_main(s.bare) == s.head());
  CHECK(git_ok(s.bare, {"show", "main:a.txt"}) == "alpha\ntwo\n");
  CHECK(git_ok(s.bare, {"fsck", "--no-progress"}).empty());
}

TEST_CASE("serve --push: a remote branch that moved on is reported push_rejected and left as it was",
          "[server][push]") {
  Served s([](Served& self) { return std::vector<std::string>{"--push", self.bare.string()}; });
  REQUIRE(eventually([&] { return bare_main(s.bare) == s.head(); }));
  // Someone else pushes a commit the workspace lacks.
  TempDir other;
  git_ok(other.path(), {"clone", "-q", s.bare.string(), "."});
  write_file(other / "theirs.txt", "theirs\n");
  git_ok(other.path(), {"add", "theirs.txt"});
  git_ok(other.path(), {"commit", "-q", "-m", "theirs"});
  git_ok(other.path(), {"push", "-q", "origin", "main"});
  const std::string theirs = bare_main(s.bare);

  s.edit("beta", "mine");
  json::object refused = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(refused.at("reason") == "push_rejected");
  CHECK(refused.at("remote") == json::value(s.bare.string()));
  REQUIRE(eventually([&] { return s.gw->err().find("failed: push_rejected") != std::string::npos; }));
  CHECK(bare_main(s.bare) == theirs);
  CHECK(git1(s.bare, {"log", "-1", "--format=%s", "main"}) == "theirs");
}

TEST_CASE("serve --push: a dead remote is retried with back-off, replies go on, and it is pushed once up",
          "[server][push]") {
  const unsigned short port = free_port();
  Served s([port](Served&) {
    return std::vector<std::string>{"--push", "git://127.0.0.1:" + std::to_string(port) + "/r.git"};
  });
  // The agent's edits and replies do not wait for the remote.
  s.edit("beta", "one");
  json::object failed = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(failed.at("reason") == "remote_unreachable");
  s.edit("one", "two");
  REQUIRE(eventually([&] { return s.gw->err().find("trying again in 500 ms") != std::string::npos; }));
  CHECK(s.gw->err().find("failed: remote_unreachable") != std::string::npos);
  CHECK(bare_main(s.bare).empty());

  GitDaemon daemon(s.base.path(), port);
  REQUIRE(eventually([&] { return bare_main(s.bare) == s.head(); }, 30s));
  CHECK(git_ok(s.bare, {"show", "main:a.txt"}) == "alpha\ntwo\n");
  CHECK(s.gw->err().find("pushed refs/heads/main to git://127.0.0.1:" + std::to_string(port)) != std::string::npos);
}
