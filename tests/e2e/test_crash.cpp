// `editgate apply` and `editgate serve` killed (SIGKILL) at random moments,
// many times over: no file or log is ever half written, git's object store
// stays sound, no lock or temp file left behind stops or litters the next
// run, a job the killed gateway was running is marked interrupted, no Node
// page outlives its gateway, and the next eval and apply commit as their
// authors. scripts/crash_soak.sh runs the same for as long as asked.
#include "client.hpp"
#include "places.hpp"
#include "pages.hpp"
#include "repl/lint.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

using Catch::Contains;
using test::read_file;
using test::TempDir;

namespace {

constexpr int kFiles = 3;
constexpr int kLines = 4000;

// A file of the test tree when its counter is `n`.
std::string content(int file, long n) {
  std::string out;
  for (int i = 0; i < kLines; ++i) {
    if (i == kLines / 2) out += "counter = " + std::to_string(n) + "\n";
    out += "file " + std::to_string(file) + " line " + std::to_string(i) + "\n";
  }
  return out;
}

// The counter of a file that is exactly content(file, n); -1 for anything else.
long counter_of(int file, const std::string& bytes) {
  const std::size_t at = bytes.find("counter = ");
  if (at == std::string::npos) return -1;
  const long n = std::strtol(bytes.c_str() + at + 10, nullptr, 10);
  return bytes == content(file, n) ? n : -1;
}

std::string path_of(int file) { return "src/f" + std::to_string(file) + ".txt"; }

// Starts `editgate apply` on `response` and returns its pid.
pid_t start_apply(const TempDir& d, const std::string& response) {
  std::vector<std::string> args = {EDITGATE_BIN, "apply", "--root", d.str(), "--agent", "crash-agent",
                                   "--lock-timeout", "3000", response};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  return pid;
}

struct Tally {
  int killed = 0, finished = 0, failed = 0, torn = 0;
};

// The response that moves every file on by one from where it is now; CHECKs
// that every file is whole (some run's before or after).
std::string next_response(const TempDir& d, Tally& t) {
  std::string out;
  for (int f = 0; f < kFiles; ++f) {
    const long n = counter_of(f, read_file(d / path_of(f)));
    if (n < 0) {
      ++t.torn;
      continue;
    }
    out += test::block(path_of(f), {"counter = " + std::to_string(n)}, {"counter = " + std::to_string(n + 1)});
  }
  return out;
}

// Files a killed writer may leave: the edit engine's temp files, the index's
// private links, and git's locks.
std::vector<std::string> leftovers(const TempDir& d) {
  std::vector<std::string> out;
  for (const auto& e : test::fs::recursive_directory_iterator(d.path())) {
    const std::string name = e.path().filename().string();
    if (name.find(".editgate-") != std::string::npos || name.starts_with("index.editgate-") ||
        (name.ends_with(".lock") && name != "editgate-commit.lock"))
      out.push_back(test::fs::relative(e.path(), d.path()).string());
  }
  return out;
}

// The live children of `parent` (zombies and the dead do not count).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* e = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10));
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent && state != 'Z')
      out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

// Whether `pid` is a running process (a zombie is not: it runs nothing).
bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// Waits (bounded) until none of `pids` runs; returns those still running.
std::vector<pid_t> wait_gone(const std::vector<pid_t>& pids) {
  std::vector<pid_t> left = pids;
  for (int i = 0; i < 400 && !left.empty(); ++i) {
    std::erase_if(left, [](pid_t p) { return !alive(p); });
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return left;
}

// The chat logs under debug/ (not the registry, debug.md), by name.
std::vector<test::fs::path> logs_of(const TempDir& d) {
  std::vector<test::fs::path> out;
  if (!test::fs::exists(d / "debug")) return out;
  for (const auto& e : test::fs::directory_iterator(d / "debug"))
    if (e.path().extension() == ".md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool any_log_has(const TempDir& d, const std::string& what) {
  for (const auto& p : logs_of(d))
    if (read_file(p).find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("crash: apply killed at random points - whole files, a sound repository, and the next apply commits") {
  TempDir d;
  test::fs::create_directories(d / "src");
  for (int f = 0; f < kFiles; ++f) test::write_file(d / path_of(f), content(f, 0));
  test::git_ok(d.path(), {"init", "-q"});
  test::git_ok(d.path(), {"add", "-A"});
  test::git_ok(d.path(), {"commit", "-q", "-m", "init"});
  TempDir io;
  const std::string response = (io / "response.md").string();

  Tally t;
  // How long one whole run takes here, to spread the kills over it.
  test::write_file(response, next_response(d, t));
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  ::waitpid(start_apply(d, response), &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<long> delay(0, whole.count() * 5 / 4);
  for (int run = 0; run < 40; ++run) {
    test::write_file(response, next_response(d, t));
    const pid_t pid = start_apply(d, response);
    std::this_thread::sleep_for(std::chrono::microseconds(delay(rng)));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) ++t.killed;
    else if (WEXITSTATUS(status) == 0) ++t.finished;
    else ++t.failed;  // a run that ran to its end must have committed
  }
  INFO("killed " << t.killed << ", finished " << t.finished << ", failed " << t.failed);
  CHECK(t.torn == 0);
  CHECK(t.failed == 0);
  CHECK(t.killed > 0);

  // The next apply is not stopped by anything a killed run left, commits as
  // the agent, and cleans up after the killed runs.
  test::write_file(response, next_response(d, t));
  test::Proc last = test::run({EDITGATE_BIN, "apply", "--root", d.str(), "--agent", "crash-agent", "--lock-timeout",
                               "3000", response});
  INFO(last.out << last.err);
  CHECK(last.exit_code == 0);
  CHECK(t.torn == 0);
  CHECK(test::git_ok(d.path(), {"log", "-1", "--format=%an"}) == "crash-agent\n");
  CHECK(test::git_ok(d.path(), {"status", "--porcelain"}).empty());
  CHECK(leftovers(d).empty());
  // What a killed run wrote and did not commit is the agent's too, never
  // the user's "uncommitted earlier state" (the run journal).
  const std::string subjects = test::git_ok(d.path(), {"log", "--format=%an|%s", "HEAD~" + std::to_string(
      std::stoi(test::git_ok(d.path(), {"rev-list", "--count", "HEAD"})) - 1) + "..HEAD"});
  INFO(subjects);
  CHECK(subjects.find("save uncommitted changes") == std::string::npos);
  for (std::size_t at = 0; at < subjects.size(); at = subjects.find('\n', at) + 1)
    CHECK(subjects.compare(at, 12, "crash-agent|") == 0);
  test::Proc fsck = test::git(d.path(), {"fsck", "--full", "--strict"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK_FALSE(fsck.err.find("error") != std::string::npos);
}

TEST_CASE("crash: a git lock that a killed editgate left is cleared - one held by another process stops apply") {
  TempDir d;
  test::write_file(d / "a.txt", "one\n");
  test::git_ok(d.path(), {"init", "-q", "-b", "main"});
  test::git_ok(d.path(), {"add", "-A"});
  test::git_ok(d.path(), {"commit", "-q", "-m", "init"});
  const std::string response = test::block("a.txt", {"one"}, {"two"});
  const std::string record = (d / ".git/editgate-commit.lock").string();
  const std::string lock = test::fs::canonical(d / ".git/refs/heads").string() + "/main.lock";
  auto apply = [&] {
    return test::run({EDITGATE_BIN, "apply", "--root", d.str(), "--agent", "crash-agent", "--lock-timeout", "200"},
                     response);
  };

  SECTION("left by an editgate killed while moving the branch: removed, and the apply commits") {
    // What a killed editgate leaves: its record names the lock, made just after.
    test::write_file(record, "pid 999999999\nlock " + lock + "\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    test::write_file(lock, "");
    test::Proc r = apply();
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(test::fs::exists(lock));
    CHECK(read_file(d / "a.txt") == "two\n");
    CHECK(test::git_ok(d.path(), {"log", "-1", "--format=%an"}) == "crash-agent\n");
  }
  SECTION("held by another git process: apply stops before writing, naming the lock") {
    test::write_file(lock, "");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // A record written after the lock was made (an editgate that was waiting
    // for it when it was killed) does not make the lock editgate's.
    test::write_file(record, "pid 999999999\nlock " + lock + "\n");
    test::Proc r = apply();
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("editgate: locked: " + lock + " is held by another git process (waited 200 ms); "
                               "if no git command is running, delete that file"));
    CHECK(read_file(d / "a.txt") == "one\n");
    CHECK(test::fs::exists(lock));
    test::Proc nc = test::run({EDITGATE_BIN, "apply", "--root", d.str(), "--no-commit"}, response);
    CHECK(nc.exit_code == 0);
    CHECK(read_file(d / "a.txt") == "two\n");
  }
  SECTION("an index.lock held by another git process also stops apply before writing") {
    test::write_file(d / ".git/index.lock", "");
    test::Proc r = apply();
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("index.lock is held by another git process (waited 200 ms)"));
    CHECK(read_file(d / "a.txt") == "one\n");
  }
}

TEST_CASE("crash: serve killed at random points - whole files and logs, interrupted jobs marked, no orphan Node page") {
  using namespace std::chrono_literals;
  TempDir d;
  test::fs::create_directories(d / "src");
  for (int f = 0; f < kFiles; ++f) test::write_file(d / path_of(f), content(f, 0));
  test::git_ok(d.path(), {"init", "-q"});
  test::git_ok(d.path(), {"add", "-A"});
  test::git_ok(d.path(), {"commit", "-q", "-m", "init"});

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(0, 400);
  Tally t;
  std::vector<pid_t> children;  // every child a killed gateway had
  int kills = 0, while_running = 0, node_first = 0, orphaned = 0;
  constexpr int kRounds = 12;
  for (int round = 0; round < kRounds; ++round) {
    // The killed gateway's port file stays behind: a new gateway's is waited for.
    test::fs::remove(test::state_of(d.path()) / "port");
    client::Gateway gw(d.str(), {}, true);
    client::Ws ws(gw.port());
    ws.login(gw.cookie());
    const std::string page = std::string(pagetest::wait_page(ws, "node").at("page").as_string());
    // A slow job (awaiting, or spinning where the page hears nothing), one
    // queued behind it, and a streamed edit of every file.
    const std::string slow = round % 4 == 1 ? "while (true) {}" : "await new Promise(r => setTimeout(r, 2000)); 'slept'";
    ws.send(R"({"op":"eval","id":"slow","page":")" + page + R"(","code":")" + slow + R"(","timeout":30000})");
    ws.send(R"({"op":"eval","id":"queued","page":")" + page + R"(","code":"'after'"})");
    std::jthread edits([port = gw.port(), cookie = gw.cookie(), body = next_response(d, t)] {
      try {
        client::request(port, "POST", "/v1/edits?agent=serve-agent", body, {{"Authorization", "Bearer " + cookie}});
      } catch (const std::exception&) {
        // The gateway was killed under it.
      }
    });
    if (round % 2 == 0) {
      // Killed while the slow job surely runs: its placeholder is in the log.
      for (int i = 0; i < 400 && !any_log_has(d, "executing ("); ++i) std::this_thread::sleep_for(5ms);
      if (any_log_has(d, "executing (")) ++while_running;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    }
    const std::vector<pid_t> kids = children_of(gw.pid());
    if (round % 3 == 1 && !kids.empty()) {
      // The Node page dies first; the gateway follows at once.
      ::kill(kids.front(), SIGKILL);
      ++node_first;
    }
    children.insert(children.end(), kids.begin(), kids.end());
    for (pid_t k : children_of(gw.pid())) children.push_back(k);  // one restarted meanwhile
    gw.stop(SIGKILL);
    ++kills;
    edits.join();
    // A page whose gateway is gone ends by itself.
    INFO("round " << round);
    const std::vector<pid_t> orphans = wait_gone(children);
    CHECK(orphans.empty());
    orphaned += static_cast<int>(orphans.size());
    for (pid_t p : orphans) ::kill(p, SIGKILL);
    next_response(d, t);  // counts torn files
  }
  INFO("kills " << kills << ", while a job ran " << while_running << ", Node page first " << node_first
                  << ", Node pages that outlived their gateway " << orphaned);
  CHECK(t.torn == 0);
  CHECK(while_running > 0);

  // The next gateway marks what the killed ones left executing, and works.
  test::fs::remove(test::state_of(d.path()) / "port");
  {
    client::Gateway gw(d.str(), {}, true);
    client::Ws ws(gw.port());
    ws.login(gw.cookie());
    const std::string page = std::string(pagetest::wait_page(ws, "node").at("page").as_string());
    const auto last = pagetest::eval(ws, page, "40 + 2");
    CHECK(last.back().at("value") == 42);
    pagetest::wait_commit(d.path(), "reply: " + page);
    CHECK(pagetest::repl_log(d.path(), {"-1", "--format=%(trailers:key=Editgate-Page,valueonly)"}) == page + "\n\n");
    // Every log whole on the REPL's ref (the files a killed edit run left
    // are the next run's to commit, below).
    for (const auto& p : logs_of(d)) {
      const std::string rel = "debug/" + p.filename().string();
      for (int i = 0; i < 200 && pagetest::repl_text(d.path(), rel) != read_file(p); ++i)
        std::this_thread::sleep_for(25ms);
      CHECK(pagetest::repl_text(d.path(), rel) == read_file(p));
    }
    CHECK_FALSE(any_log_has(d, "executing ("));
    std::size_t marked = 0;
    for (const auto& p : logs_of(d)) {
      const std::string text = read_file(p);
      marked += pagetest::count(text, "(**ERROR** interrupted)");
      const repl::LintReport r = repl::lint_log(p.string(), text, std::nullopt);
      INFO(repl::lint_text(r) << text);
      CHECK(r.problems.empty());
    }
    CHECK(marked >= static_cast<std::size_t>(while_running));
    CHECK(pagetest::count(pagetest::messages(d.path()), "interrupted by a gateway restart") > 0);
    children = children_of(gw.pid());
    CHECK(gw.stop() == 0);
  }
  CHECK(wait_gone(children).empty());

  // The next apply is stopped by nothing a killed gateway left, and commits as the agent.
  TempDir io;
  const std::string response = (io / "response.md").string();
  test::write_file(response, next_response(d, t));
  test::Proc last = test::run({EDITGATE_BIN, "apply", "--root", d.str(), "--agent", "crash-agent", "--lock-timeout",
                               "3000", response});
  INFO(last.out << last.err);
  CHECK(last.exit_code == 0);
  CHECK(t.torn == 0);
  CHECK(test::git_ok(d.path(), {"log", "-1", "--format=%an"}) == "crash-agent\n");
  CHECK(test::git_ok(d.path(), {"status", "--porcelain"}).empty());
  CHECK(leftovers(d).empty());
  test::Proc fsck = test::git(d.path(), {"fsck", "--full", "--strict"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK_FALSE(fsck.err.find("error") != std::string::npos);
}
