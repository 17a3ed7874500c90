// `editgate serve --push REMOTE` and the push op: a real gateway pushing
// to a local bare repository and to `git daemon` on 127.0.0.1 (started and
// stopped here), a remote whose branch moved on, and a remote that is down
// and comes up later. What arrived is read back with the git command line.
// The attacks: a remote that accepts and never answers, credentials in a
// URL, and an http remote that refuses every credential, each served here
// on 127.0.0.1.
#include "client.hpp"
#include "support.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
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

// A server on 127.0.0.1:port() for the attacks, on a thread of its own
// until destroyed. Each connection's bytes so far go to `answer`: what it
// returns is sent and the connection closed; "" keeps reading. Connections
// stay open until then, however many come.
class Server {
 public:
  using Answer = std::function<std::string(const std::string& received)>;
  explicit Server(Answer answer) : answer_(std::move(answer)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    REQUIRE(::listen(listen_, 16) == 0);
    REQUIRE(::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    REQUIRE(::pipe2(stop_, O_CLOEXEC) == 0);
    thread_ = std::thread([this] { loop(); });
  }
  ~Server() {
    [[maybe_unused]] ssize_t ignored = ::write(stop_[1], "x", 1);
    thread_.join();
    ::close(stop_[0]);
    ::close(stop_[1]);
    ::close(listen_);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  unsigned short port() const { return port_; }
  int connections() {
    std::lock_guard lock(mutex_);
    return accepted_;
  }

 private:
  void loop() {
    std::map<int, std::string> open;  // each connection's bytes so far
    for (;;) {
      std::vector<pollfd> fds = {{stop_[0], POLLIN, 0}, {listen_, POLLIN, 0}};
      for (auto& [fd, _] : open) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 1000) < 0) continue;
      if (fds[0].revents) break;
      if (fds[1].revents) {
        const int c = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) {
          open[c];
          std::lock_guard lock(mutex_);
          ++accepted_;
        }
      }
      for (std::size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        char buf[4096];
        const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
        std::string& received = open[fds[i].fd];
        if (got > 0) received.append(buf, static_cast<std::size_t>(got));
        const std::string reply = got > 0 ? answer_(received) : std::string();
        if (got > 0 && reply.empty()) continue;
        if (!reply.empty()) [[maybe_unused]] ssize_t sent = ::write(fds[i].fd, reply.data(), reply.size());
        ::close(fds[i].fd);
        open.erase(fds[i].fd);
      }
    }
    for (auto& [fd, _] : open) ::close(fd);
  }

  Answer answer_;
  int listen_ = -1;
  int stop_[2] = {-1, -1};
  unsigned short port_ = 0;
  std::mutex mutex_;
  int accepted_ = 0;
  std::thread thread_;
};

// A variable of the environment the gateways started here inherit, while in scope.
struct Env {
  std::string name;
  Env(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
  ~Env() { ::unsetenv(name.c_str()); }
};

// What a process was started with, its arguments joined by spaces.
std::string cmdline(pid_t pid) {
  std::string text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  for (char& c : text)
    if (c == '\0') c = ' ';
  return text;
}

// The processes whose parent is `parent`.
std::vector<pid_t> children(pid_t parent) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat;
    try {
      stat = read_file(entry.path() / "stat");
    } catch (...) {
      continue;  // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces, so from its ')'.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    char state = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent)
      found.push_back(std::stoi(name));
  }
  return found;
}

// What `watcher` hears up to its next push event, whose push it returns;
// no message names `secret`.
json::object next_push(client::Ws& watcher, const std::string& secret) {
  for (;;) {
    auto m = watcher.read(20s);
    REQUIRE(m);
    CHECK(m->find(secret) == std::string::npos);
    json::object msg = obj(*m);
    if (msg.contains("event") && msg.at("event").as_object().at("type") == "push")
      return msg.at("event").as_object().at("push").as_object();
  }
}

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
  // The log line follows the push's process, which the remote's update may precede.
  CHECK(eventually([&] {
    return s.gw->err().find("pushed refs/heads/main to git://127.0.0.1:" + std::to_string(port)) != std::string::npos;
  }));
}

TEST_CASE("serve --push: a remote that accepts and never answers fails the push with remote_timeout, its credentials "
          "never show, and SIGTERM still stops the gateway at once, its lock released",
          "[server][push]") {
  Server silent([](const std::string&) { return std::string(); });
  const std::string url = "http://user:s3cret@127.0.0.1:" + std::to_string(silent.port()) + "/x.git";
  Served s([&url](Served& self) {
    git_ok(self.dir.path(), {"remote", "add", "origin", url});
    return std::vector<std::string>{"--push", "origin", "--push-timeout", "2"};
  });
  // The push at start may hold the remote first (2 s), then the op's (2 s).
  const auto asked = std::chrono::steady_clock::now();
  json::object failed = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(std::chrono::steady_clock::now() - asked < 8s);
  CHECK(failed.at("reason") == "remote_timeout");
  CHECK(failed.at("remote") == "origin");
  CHECK(json::serialize(failed).find("s3cret") == std::string::npos);
  CHECK(silent.connections() >= 1);

  // Another push holds the remote, asked over HTTP: a child process whose
  // arguments name no secret.
  std::optional<client::Response> answer;
  std::thread asking([&] {
    try {
      answer = client::request(s.gw->port(), "POST", "/v1/push", "{}",
                               {{"Authorization", "Bearer " + s.gw->cookie()}, {"Content-Type", "application/json"}});
    } catch (const std::runtime_error&) {
      // The gateway closed the connection as it stopped: no answer is due.
    }
  });
  std::string pushing;
  const bool seen = eventually([&] {
    for (pid_t child : children(s.gw->pid()))
      if (std::string c = cmdline(child); c.find("__push") != std::string::npos) pushing = c;
    return !pushing.empty();
  }, 5s);
  CHECK(seen);
  CHECK(pushing.find("--remote=origin") != std::string::npos);
  CHECK(pushing.find("s3cret") == std::string::npos);

  // SIGTERM: the push under way is killed (its request answered, if the
  // connection is still open), and the last push has 2 s at most. (A
  // WebSocket client that does not read would hold the stop for its close
  // handshake: closed first.)
  s.ws->close();
  const auto stopping = std::chrono::steady_clock::now();
  CHECK(s.gw->stop(SIGTERM, 10s) == 0);
  CHECK(std::chrono::steady_clock::now() - stopping < 5s);
  asking.join();
  if (answer) {
    CHECK(answer->status == 503);
    CHECK(answer->body.find(R"("error":"shutting_down")") != std::string::npos);
  }
  const std::string err = s.gw->err();
  CHECK(err.find("failed: remote_timeout") != std::string::npos);
  CHECK(err.find("s3cret") == std::string::npos);
  // No push process outlived the gateway.
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string c;
    try {
      c = cmdline(std::stoi(name));
    } catch (...) {
      continue;
    }
    CHECK_FALSE((c.find("__push") != std::string::npos && c.find(s.dir.str()) != std::string::npos));
  }
  // The lock is released: another gateway serves the workspace.
  client::Gateway again(s.dir.str());
  CHECK(again.port() != 0);
}

TEST_CASE("serve --push: a URL with credentials is refused at start, naming where they go, and a configured "
          "remote's never show in replies, events or the log",
          "[server][push]") {
  TempDir dir;
  git_ok(dir.path(), {"init", "-q", "-b", "main"});
  const std::string dead = std::to_string(free_port());
  for (const std::string& url : {"http://user:hunter2@127.0.0.1:" + dead + "/x.git",
                                "https://hunter2@127.0.0.1:" + dead + "/x.git",
                                "ssh://git:hunter2@127.0.0.1:" + dead + "/x.git"}) {
    INFO(url);
    std::string refused;
    try {
      client::Gateway gw(dir.str(), {"--push", url});
    } catch (const std::runtime_error& e) {
      refused = e.what();
    }
    CHECK(refused.find("--push: ") != std::string::npos);
    CHECK(refused.find("EDITGATE_PUSH_USERNAME and EDITGATE_PUSH_PASSWORD") != std::string::npos);
    CHECK(refused.find("git remote add") != std::string::npos);
    CHECK(refused.find("ssh-agent") != std::string::npos);
    CHECK(refused.find("hunter2") == std::string::npos);
  }
  // serve --help says so; the push child's command is hidden.
  Proc help = run({EDITGATE_BIN, "serve", "--help"});
  CHECK(help.out.find("--push-timeout") != std::string::npos);
  CHECK(help.out.find("EDITGATE_PUSH_PASSWORD") != std::string::npos);
  CHECK(run({EDITGATE_BIN, "--help"}).out.find("__push") == std::string::npos);

  Served s([&dead](Served& self) {
    git_ok(self.dir.path(), {"remote", "add", "origin", "http://user:s3cret@127.0.0.1:" + dead + "/x.git"});
    return std::vector<std::string>{"--push", "origin"};
  });
  client::Ws watcher(s.gw->port());
  watcher.login(s.gw->cookie());
  watcher.send(R"({"op":"watch","id":"w"})");
  json::object failed = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(failed.at("reason") == "remote_unreachable");
  CHECK(failed.at("remote") == "origin");
  CHECK(json::serialize(failed).find("s3cret") == std::string::npos);
  auto r = client::request(s.gw->port(), "POST", "/v1/push", "{}",
                           {{"Authorization", "Bearer " + s.gw->cookie()}, {"Content-Type", "application/json"}});
  CHECK(r.status == 502);
  CHECK(r.body.find("s3cret") == std::string::npos);
  // Every message the watcher hears, up to a failed push's event.
  while (next_push(watcher, "s3cret").at("ok") != false) {
  }
  REQUIRE(eventually([&] { return s.gw->err().find("failed: remote_unreachable") != std::string::npos; }));
  CHECK(s.gw->err().find("s3cret") == std::string::npos);
}

TEST_CASE("serve --push: EDITGATE_PUSH_USERNAME and EDITGATE_PUSH_PASSWORD reach an http remote, once a push, its "
          "refusal is remote_auth_failed, and the password shows nowhere",
          "[server][push]") {
  // Asks every request for Basic credentials, and records those it gets.
  std::mutex m;
  std::vector<std::string> requests, authorizations;
  Server refusing([&](const std::string& got) -> std::string {
    const std::size_t end = got.find("\r\n\r\n");
    if (end == std::string::npos) return "";
    std::lock_guard lock(m);
    requests.push_back(got.substr(0, got.find("\r\n")));
    if (std::size_t a = got.find("\r\nAuthorization: "); a != std::string::npos && a < end) {
      a += 17;
      authorizations.push_back(got.substr(a, got.find("\r\n", a) - a));
    }
    return "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n"
           "Connection: close\r\n\r\n";
  });
  Env user("EDITGATE_PUSH_USERNAME", "alice");
  Env password("EDITGATE_PUSH_PASSWORD", "s3cret-token");
  const std::string url = "http://127.0.0.1:" + std::to_string(refusing.port()) + "/x.git";
  Served s([&url](Served&) { return std::vector<std::string>{"--push", url}; });
  client::Ws watcher(s.gw->port());
  watcher.login(s.gw->cookie());
  watcher.send(R"({"op":"watch","id":"w"})");

  json::object failed = s.call({{"op", "push"}, {"id", "p"}});
  CHECK(failed.at("reason") == "remote_auth_failed");
  CHECK(std::string(failed.at("error").as_string()).find("refused the credentials") != std::string::npos);
  CHECK(failed.at("remote") == json::value(url));
  CHECK(json::serialize(failed).find("s3cret") == std::string::npos);
  CHECK(next_push(watcher, "s3cret").at("ok") == false);
  REQUIRE(eventually([&] { return s.gw->err().find("failed: remote_auth_failed") != std::string::npos; }));
  CHECK(s.gw->err().find("s3cret") == std::string::npos);
  // Base64 of alice:s3cret-token, offered once by each push (the one at
  // start and the op's, or one for both): never asked again in a loop, and
  // not retried.
  std::this_thread::sleep_for(500ms);
  std::lock_guard lock(m);
  INFO(requests.size() << " requests");
  REQUIRE_FALSE(authorizations.empty());
  for (const std::string& a : authorizations) CHECK(a == "Basic YWxpY2U6czNjcmV0LXRva2Vu");
  CHECK(authorizations.size() <= 2);
  CHECK(requests.size() <= 4);
}
