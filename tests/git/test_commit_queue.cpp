// The workspace's one commit queue (git/commit_queue.hpp) and the REPL's
// items on it (repl/committer.hpp): one thread, in the order submitted, a
// bound with a named error past it; the REPL's items group only when many
// wait together with nothing else between them.
#include "git/commit_queue.hpp"
#include "repl/committer.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

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
  const std::string file = "f" + std::to_string(n) + ".txt";
  test::write_file(dir / file, std::to_string(n) + "\n");
  return repl::CommitItem{{repl::FileChange{file, nullptr, std::make_shared<const std::string>(std::to_string(n) + "\n")}},
                          {"agent", "agent@example.com"},
                          "exchange " + std::to_string(n),
                          {{"Editgate-Kind", "reply"}},
                          {}};
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

TEST_CASE("the REPL's items group only when more than 8 wait together with nothing queued between them",
          "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str());
  REQUIRE(queue.has_value());
  repl::Committer committer(**queue);
  int next = 0;
  auto submit = [&](int n) {
    for (int i = 0; i < n; ++i) REQUIRE(committer.submit(item(dir, next++)).has_value());
  };
  auto subjects = [&](int n) {
    return test::git_ok(dir.path(), {"log", "-" + std::to_string(n), "--reverse", "--format=%s"});
  };

  // 10 waiting, but another writer's commit between them: a commit each,
  // in the order submitted, the other writer's in its place.
  {
    Gate gate;
    REQUIRE((*queue)->submit(gate.work()).has_value());
    gate.entered.get_future().wait();
    submit(5);
    REQUIRE((*queue)->submit([&](editgit::Repository& repo) {
      test::write_file(dir / "other.txt", "other\n");
      editgit::CommitRequest req;
      editgit::Change change;
      change.path = "other.txt";
      change.after = {std::string_view("other\n")};
      req.changes.push_back(change);
      req.author = {"writer", "writer@example.com"};
      req.message = "another writer\n";
      REQUIRE(repo.commit(req).has_value());
    }).has_value());
    submit(5);
    gate.open.set_value();
    committer.wait_idle();
    CHECK(subjects(11) ==
          "exchange 0\nexchange 1\nexchange 2\nexchange 3\nexchange 4\nanother writer\n"
          "exchange 5\nexchange 6\nexchange 7\nexchange 8\nexchange 9\n");
  }
  // 10 waiting together: one commit for them all.
  {
    Gate gate;
    REQUIRE((*queue)->submit(gate.work()).has_value());
    gate.entered.get_future().wait();
    submit(10);
    gate.open.set_value();
    committer.wait_idle();
    CHECK(subjects(1) == "repl: 10 exchanges\n");
  }
  CHECK(committer.commits() == 11);
  CHECK(test::git_ok(dir.path(), {"status", "--porcelain"}).empty());
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
    REQUIRE(committer.submit(repl::CommitItem{{repl::FileChange{"log.md", before, placeholder},
                                                repl::FileChange{"log.md", placeholder, after}},
                                               {"agent", "agent@example.com"},
                                               "exchange " + std::to_string(n),
                                               {{"Editgate-Kind", "reply"}},
                                               {}})
                .has_value());
    before = after;
  }
  test::write_file(dir / "log.md", text);
  before.reset();
  // Only the last text is still held by the waiting batch (there was no first
  // one: the file is new); the 39 between are let go.
  CHECK(texts.back().lock() != nullptr);
  int held = 0;
  for (std::size_t i = 0; i + 1 < texts.size(); ++i) held += texts[i].expired() ? 0 : 1;
  CHECK(held == 0);
  gate.open.set_value();
  committer.wait_idle();
  CHECK(test::git_ok(dir.path(), {"log", "-1", "--format=%s"}) == "repl: 20 exchanges\n");
  CHECK(test::git_ok(dir.path(), {"show", "HEAD:log.md"}) == text);
  CHECK(test::git_ok(dir.path(), {"status", "--porcelain"}).empty());
}

TEST_CASE("a REPL item the full queue refuses is reported, and its callback hears no commit", "[unit][commit_queue]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  auto queue = CommitQueue::open(dir.str(), 1);
  REQUIRE(queue.has_value());
  repl::Committer committer(**queue);
  Gate gate;
  REQUIRE((*queue)->submit(gate.work()).has_value());
  gate.entered.get_future().wait();
  REQUIRE((*queue)->submit([](editgit::Repository&) {}).has_value());  // the one place taken by another writer
  std::optional<std::string> heard;
  repl::CommitItem refused = item(dir, 0);
  refused.committed = [&](const std::string& id) { heard = id; };
  auto r = committer.submit(std::move(refused));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == repl::Error::commit_queue_full);
  CHECK(heard == std::string());
  // The item is left whole, so its writer keeps the files for its next commit.
  CHECK(refused.files.size() == 1);
  gate.open.set_value();
  committer.wait_idle();
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
