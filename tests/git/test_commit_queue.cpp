// The workspace's one commit queue (git/commit_queue.hpp) and the REPL's
// items on it (repl/committer.hpp): one thread, in the order submitted, a
// bound with a named error past it; the REPL's items go to its own ref, an
// exchange in one commit, and commits at least a gap apart under load.
#include "git/commit_queue.hpp"
#include "repl/committer.hpp"
#include "support.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include <atomic>
#include <future>
#include <optional>
#include <stdexcept>
#include <mutex>
#include <thread>
#include <vector>

using editgit::CommitQueue;

namespace {

// Holds the queue's thread in a piece of work until released, so what is
// submitted meanwhile waits.
struct Gate {
  std::promise<void> entered, open;
  CommitQueue::Work work() {
    return [this](editgit::Repository&) {
      entered.set_value();
      open.get_future().wait();
    };
  }
};

repl::CommitItem item(const test::TempDir& dir, int n) {
  const std::string file = "debug/f" + std::to_string(n) + ".md";
  test::write_file(dir / file, std::to_string(n) + "\n");
  repl::CommitItem i;
  i.files = {repl::FileChange{file, nullptr, std::make_shared<const std::string>(std::to_string(n) + "\n")}};
  i.author = {"agent", "agent@example.com"};
  i.summary = "exchange " + std::to_string(n);
  i.trailers = {{"Editgate-Kind", "page"}};
  return i;
}

}  // namespace

TEST_CASE("the commit queue runs work in the order submitted, and run() waits for its turn", "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  std::mutex m;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i)
    REQUIRE((*queue)->submit([&, i](editgit::Repository&) {
      std::lock_guard lock(m);
      order.push_back(i);
    }).has_value());
  REQUIRE((*queue)->run([&](editgit::Repository&) {
    std::lock_guard lock(m);
    order.push_back(50);
  }).has_value());
  std::lock_guard lock(m);
  REQUIRE(order.size() == 51);  // run() returned after its work, so after everything before it
  for (int i = 0; i <= 50; ++i) CHECK(order[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("the commit queue refuses past its bound with queue_full, and takes work again once it drains",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str(), 2);
  REQUIRE(queue.has_value());
  Gate gate;
  REQUIRE((*queue)->submit(gate.work()).has_value());
  gate.entered.get_future().wait();  // running: it no longer counts as waiting
  int ran = 0;
  auto count = [&](editgit::Repository&) { ++ran; };
  const int owner = 0;
  CHECK((*queue)->submit(count, &owner).has_value());
  auto joined = (*queue)->join_last(nullptr, [] {});
  REQUIRE(joined.has_value());
  CHECK_FALSE(*joined);  // no owner: never joins
  bool added = false;
  joined = (*queue)->join_last(&owner, [&] { added = true; });
  REQUIRE(joined.has_value());
  CHECK((*joined && added));  // the owner's waiting item takes it: 2 waiting now
  auto refused = (*queue)->submit(count);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == editgit::Error::queue_full);
  // A join counts against the bound too.
  joined = (*queue)->join_last(&owner, [&] { added = false; });
  REQUIRE_FALSE(joined.has_value());
  CHECK(joined.error().code == editgit::Error::queue_full);
  CHECK(added);
  gate.open.set_value();
  (*queue)->wait_idle();
  CHECK(ran == 1);  // the item and what joined it are one piece of work
  CHECK((*queue)->submit(count).has_value());
  (*queue)->stop();
  CHECK(ran == 2);  // stop runs what is queued
  auto after = (*queue)->submit(count);
  REQUIRE_FALSE(after.has_value());
  CHECK(after.error().code == editgit::Error::queue_full);
}

TEST_CASE("a commit that throws fails alone: run() names it, the work behind it still runs", "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  auto thrown = (*queue)->run([](editgit::Repository&) { throw std::runtime_error("disk on fire"); });
  REQUIRE_FALSE(thrown.has_value());
  CHECK(thrown.error().code == editgit::Error::internal);
  CHECK(thrown.error().message.find("disk on fire") != std::string::npos);
  bool ran = false;
  REQUIRE((*queue)->run([&](editgit::Repository&) { ran = true; }).has_value());
  CHECK(ran);
  // From the queue's own thread, run() would wait for itself: it is refused.
  std::optional<editgit::Result<void>> nested;
  REQUIRE((*queue)->run([&](editgit::Repository&) { nested = (*queue)->run([](editgit::Repository&) {}); }).has_value());
  REQUIRE(nested.has_value());
  REQUIRE_FALSE(nested->has_value());
  CHECK(nested->error().code == editgit::Error::invalid);
}

namespace {

// The REPL's committer on a thread of its own, as the gateway's worker runs it.
struct Held {
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard{io.get_executor()};
  std::thread thread{[this] { io.run(); }};
  std::optional<repl::Committer> committer;
  Held(CommitQueue& queue, repl::CommitterOptions options) {
    committer.emplace(queue, boost::asio::any_io_executor(io.get_executor()), options);
  }
  ~Held() {
    on_thread([this] { committer.reset(); });
    guard.reset();
    thread.join();
  }
  template <class F>
  void on_thread(F f) {
    std::promise<void> done;
    boost::asio::post(io, [&] {
      f();
      done.set_value();
    });
    done.get_future().wait();
  }
  void submit(repl::CommitItem item) {
    on_thread([&] { REQUIRE(committer->submit(std::move(item)).has_value()); });
  }
};

// A committer's hold and gap, in milliseconds; the rest as the gateway has it.
repl::CommitterOptions timing(int hold, int gap) {
  repl::CommitterOptions o;
  o.hold = std::chrono::milliseconds(hold);
  o.gap = std::chrono::milliseconds(gap);
  return o;
}

// A committer whose wait follows the bytes it commits (gap 10 ms, no packing).
repl::CommitterOptions by_bytes(std::size_t bytes_per_second, int max_gap) {
  repl::CommitterOptions o = timing(1000, 10);
  o.bytes_per_second = bytes_per_second;
  o.max_gap = std::chrono::milliseconds(max_gap);
  o.pack = false;
  return o;
}

// A request (opens) or its reply (closes) of job `job` on page "node-1",
// writing debug/node-1.md from `before` to `after`.
repl::CommitItem exchange_item(bool request, int job, repl::Text before, const std::string& after) {
  repl::CommitItem item;
  item.files = {repl::FileChange{"debug/node-1.md", std::move(before), std::make_shared<const std::string>(after)}};
  item.author = {"agent", "agent@example.com"};
  const std::string key = "node-1/" + std::to_string(job);
  item.page = "node-1";
  item.summary = std::string(request ? "request: agent to node-1, job " : "reply: node-1 to agent, job ") +
                 std::to_string(job);
  item.trailers = {{"Editgate-Kind", request ? "request" : "reply"}, {"Editgate-Job", std::to_string(job)},
                   {"Editgate-Page", "node-1"}};
  (request ? item.opens : item.closes).push_back(key);
  item.headline = request ? "`6 * 7`" : "→ 42";
  return item;
}

// `jobs` exchanges appended to `text` (the log's first text), a 10 ms pause
// after each `every`, then everything committed.
void paced_exchanges(Held& held, std::string& text, int jobs, int every = 1) {
  repl::Text before;
  for (int job = 1; job <= jobs; ++job) {
    text += "request " + std::to_string(job) + "\n";
    held.submit(exchange_item(true, job, before, text));
    before = std::make_shared<const std::string>(text);
    text += "reply " + std::to_string(job) + "\n";
    held.submit(exchange_item(false, job, before, text));
    before = std::make_shared<const std::string>(text);
    if (job % every == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  held.on_thread([&] { held.committer->wait_idle(); });
}

std::string repl_git(const test::TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "log");
  args.push_back("--glob=refs/editgate/repl/*");
  return test::git_ok(dir.path(), args);
}

// The REPL ref's tip.
std::string repl_tip(const test::TempDir& dir) {
  return test::git_ok(dir.path(), {"for-each-ref", "--format=%(objectname)", "refs/editgate/repl/"}).substr(0, 40);
}

}  // namespace

TEST_CASE("an exchange whose reply comes soon is one commit on the REPL's ref; the branch never moves",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  {
    Held held(**queue, timing(2000, 10));
    held.submit(exchange_item(true, 1, nullptr, "request\n"));
    held.submit(exchange_item(false, 1, std::make_shared<const std::string>("request\n"), "request\nreply\n"));
    held.on_thread([&] { held.committer->wait_idle(); });
  }
  CHECK(repl_git(dir, {"--format=%s"}) == "node-1: `6 * 7` → 42\n");
  const std::string body = repl_git(dir, {"-1", "--format=%b"});
  CHECK(body.find("- request: agent to node-1, job 1 `6 * 7`\n- reply: node-1 to agent, job 1 → 42\n") == 0);
  CHECK(body.find("Editgate-Kind: exchange\n") != std::string::npos);
  CHECK(body.find("Editgate-Job: 1\n") != std::string::npos);
  CHECK(body.find("Editgate-Page: node-1\n") != std::string::npos);
  // Linked to the branch commit it saw.
  CHECK(body.find("Editgate-Branch: " + test::git_ok(dir.path(), {"rev-parse", "HEAD"})) != std::string::npos);
  // The tree is the folder of logs itself.
  CHECK(repl_git(dir, {"-1", "--format=", "--name-only"}) == "node-1.md\n");
  CHECK(test::git_ok(dir.path(), {"log", "--format=%s"}) == "code\n");
}

TEST_CASE("a request whose job runs past the hold is committed alone, and its reply after it",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  Held held(**queue, timing(100, 10));
  held.submit(exchange_item(true, 7, nullptr, "request\n"));
  std::string subjects;
  for (int i = 0; i < 200 && subjects.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    subjects = test::git(dir.path(), {"log", "--format=%s", "--glob=refs/editgate/repl/*"}).out;
  }
  CHECK(subjects == "node-1: `6 * 7` (job 7 running)\n");
  held.submit(exchange_item(false, 7, std::make_shared<const std::string>("request\n"), "request\nreply\n"));
  held.on_thread([&] { held.committer->wait_idle(); });
  CHECK(repl_git(dir, {"--format=%s"}) == "node-1: job 7 → 42\nnode-1: `6 * 7` (job 7 running)\n");
}

TEST_CASE("under load the REPL's commits stay at least the gap apart, and every exchange is on the record",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  constexpr int exchanges = 300;
  const auto started = std::chrono::steady_clock::now();
  {
    Held held(**queue, timing(1000, 100));
    std::string text;
    paced_exchanges(held, text, exchanges, 10);
    CHECK(test::git_ok(dir.path(), {"show", repl_tip(dir) + ":node-1.md"}) == text);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string subjects = repl_git(dir, {"--format=%s"});
  const std::size_t commits = static_cast<std::size_t>(std::count(subjects.begin(), subjects.end(), '\n'));
  INFO(subjects);
  // At most one commit a gap (100 ms), plus the first.
  CHECK(commits <= static_cast<std::size_t>(seconds / 0.1) + 2);
  CHECK(commits < exchanges);
  const std::string bodies = repl_git(dir, {"--format=%B"});
  for (int job = 1; job <= exchanges; ++job) {
    INFO("job " << job);
    CHECK(bodies.find("- reply: node-1 to agent, job " + std::to_string(job) + " ") != std::string::npos);
    CHECK(bodies.find("Editgate-Job: " + std::to_string(job) + "\n") != std::string::npos);
  }
}

TEST_CASE("a long log is committed less often: the next commit waits for the last one's bytes at the rate",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  // A 64 KiB log: a commit each 250 ms at most.
  const repl::CommitterOptions options = by_bytes(256 << 10, 1000);
  const std::string log(64 << 10, 'x');
  const auto started = std::chrono::steady_clock::now();
  {
    Held held(**queue, options);
    std::string text = log;
    paced_exchanges(held, text, 100);
    CHECK(test::git_ok(dir.path(), {"show", repl_tip(dir) + ":node-1.md"}) == text);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string subjects = repl_git(dir, {"--format=%s"});
  const std::size_t commits = static_cast<std::size_t>(std::count(subjects.begin(), subjects.end(), '\n'));
  INFO(subjects);
  // The gap alone (10 ms) would allow one commit each exchange (10 ms apart).
  CHECK(commits <= static_cast<std::size_t>(seconds / 0.25) + 2);
  const std::string bodies = repl_git(dir, {"--format=%B"});
  for (int job = 1; job <= 100; ++job) CHECK(bodies.find("Editgate-Job: " + std::to_string(job) + "\n") != std::string::npos);
}

TEST_CASE("the byte rate's wait is capped: a huge log is still committed about once a max_gap",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  // 64 KiB: a minute's wait at this rate, but 100 ms at most.
  const repl::CommitterOptions options = by_bytes(1024, 100);
  {
    Held held(**queue, options);
    std::string text(64 << 10, 'x');
    paced_exchanges(held, text, 100);  // about a second
  }
  const std::string subjects = repl_git(dir, {"--format=%s"});
  INFO(subjects);
  // Uncapped: the first commit, then nothing until the final flush.
  CHECK(std::count(subjects.begin(), subjects.end(), '\n') >= 3);
}

TEST_CASE("a grouped batch keeps one log's first text before and last text after, not every one between",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  repl::Committer committer(**queue);
  Gate gate;
  REQUIRE((*queue)->submit(gate.work()).has_value());
  gate.entered.get_future().wait();
  // 20 exchanges on one log while the queue is busy, each writing it twice
  // (a placeholder, then the reply), each text the last one grown by a line.
  std::vector<std::weak_ptr<const std::string>> texts;
  repl::Text before;
  std::string text;
  for (int n = 0; n < 20; ++n) {
    text += "placeholder " + std::to_string(n) + "\n";
    auto placeholder = std::make_shared<const std::string>(text);
    text += "line " + std::to_string(n) + "\n";
    auto after = std::make_shared<const std::string>(text);
    texts.push_back(placeholder);
    texts.push_back(after);
    repl::CommitItem item;
    item.files = {repl::FileChange{"debug/log.md", before, placeholder},
                  repl::FileChange{"debug/log.md", placeholder, after}};
    item.author = {"agent", "agent@example.com"};
    item.summary = "exchange " + std::to_string(n);
    item.trailers = {{"Editgate-Kind", "reply"}};
    item.closes = {"log/" + std::to_string(n)};
    REQUIRE(committer.submit(std::move(item)).has_value());
    before = after;
  }
  before.reset();
  // Only the last text is still held by the waiting batch (there was no first
  // one: the file is new); the 39 between are let go.
  CHECK(texts.back().lock() != nullptr);
  int held = 0;
  for (std::size_t i = 0; i + 1 < texts.size(); ++i) held += texts[i].expired() ? 0 : 1;
  CHECK(held == 0);
  gate.open.set_value();
  committer.wait_idle();
  CHECK(repl_git(dir, {"-1", "--format=%s"}) == "repl: 20 exchanges\n");
  CHECK(test::git_ok(dir.path(), {"show", repl_tip(dir) + ":log.md"}) == text);
}

TEST_CASE("REPL items wait while the queue is full, and past the bound of those held they are refused",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str(), 1);
  REQUIRE(queue.has_value());
  repl::CommitterOptions options;
  options.max_held = 1;
  repl::Committer committer(**queue, std::nullopt, options);
  Gate gate;
  REQUIRE((*queue)->submit(gate.work()).has_value());
  gate.entered.get_future().wait();
  REQUIRE((*queue)->submit([](editgit::Repository&) {}).has_value());  // the one place taken by another writer
  std::optional<std::string> first, second;
  repl::CommitItem held = item(dir, 0);
  held.committed = [&](const std::string& id) { first = id; };
  REQUIRE(committer.submit(std::move(held)).has_value());  // held
  repl::CommitItem refused = item(dir, 1);
  refused.committed = [&](const std::string& id) { second = id; };
  auto r = committer.submit(std::move(refused));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == repl::Error::commit_queue_full);
  CHECK(second == std::string());
  // The item is left whole, so its writer keeps the files for its next commit.
  CHECK(refused.files.size() == 1);
  gate.open.set_value();
  committer.wait_idle();
  REQUIRE(first.has_value());
  CHECK(first->size() == 40);
  CHECK(repl_git(dir, {"--format=%s"}) == "exchange 0\n");
}

TEST_CASE("the commit queue tells every observer after each piece of work, until each is forgotten",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  std::atomic<int> events{0}, pushes{0};
  const std::size_t hub = (*queue)->after_each([&](editgit::Repository&) { ++events; });
  const std::size_t pusher = (*queue)->after_each([&](editgit::Repository&) {
    ++pushes;
    throw std::runtime_error("an observer's failure is its own");
  });
  CHECK(hub != pusher);
  REQUIRE((*queue)->run([](editgit::Repository&) {}).has_value());
  (*queue)->wait_idle();  // run() returns after the work, before its observers
  CHECK(events == 1);
  CHECK(pushes == 1);  // both told, the throwing one too
  (*queue)->forget(pusher);
  REQUIRE((*queue)->run([](editgit::Repository&) {}).has_value());
  (*queue)->wait_idle();  // run() returns after the work, before its observers
  CHECK(events == 2);
  CHECK(pushes == 1);
  (*queue)->forget(hub);
  REQUIRE((*queue)->run([](editgit::Repository&) {}).has_value());
  (*queue)->wait_idle();  // run() returns after the work, before its observers
  CHECK(events == 2);
}
