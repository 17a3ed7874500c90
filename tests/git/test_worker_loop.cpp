// The worker loop every queue thread is built on (git/worker_loop.hpp):
// woken by an item, in the order posted, a bound with a named refusal, a
// deadline, and stop that drains or abandons what waits.
#include "git/worker_loop.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

using editgit::OnStop;
using editgit::Refused;
using editgit::WorkerLoop;
using namespace std::chrono_literals;

namespace {

// What the steps saw, in order: each step's items, and whether it was the last.
struct Seen {
  std::mutex mutex;
  std::vector<std::vector<int>> steps;
  std::vector<bool> lasts;
  std::vector<std::thread::id> threads;
  void add(const std::vector<int>& items, bool last) {
    std::lock_guard lock(mutex);
    steps.push_back(items);
    lasts.push_back(last);
    threads.push_back(std::this_thread::get_id());
  }
  std::vector<int> items() {
    std::lock_guard lock(mutex);
    std::vector<int> all;
    for (const auto& s : steps) all.insert(all.end(), s.begin(), s.end());
    return all;
  }
};

// A step that holds the thread on item 0 until open() is called.
struct Gate {
  std::promise<void> entered, opened;
  std::shared_future<void> open_future = opened.get_future().share();
  void hold(const std::vector<int>& items) {
    for (int i : items)
      if (i == 0) {
        entered.set_value();
        open_future.wait();
      }
  }
  void wait_entered() { REQUIRE(entered.get_future().wait_for(5s) == std::future_status::ready); }
  void open() { opened.set_value(); }
};

}  // namespace

TEST_CASE("a worker loop wakes for an item, on its own thread, and steps the items in the order posted",
          "[unit][worker_loop]") {
  Seen seen;
  std::promise<void> first;
  bool told = false;
  WorkerLoop<int> loop({.name = "eg-test", .one_at_a_time = true}, [&](std::vector<int>& items, bool last) {
    seen.add(items, last);
    if (!told && !items.empty()) {
      told = true;
      first.set_value();
    }
    return WorkerLoop<int>::Next{};
  });
  // No deadline, no item: the thread sleeps until the first item wakes it.
  std::this_thread::sleep_for(50ms);
  CHECK(seen.items().empty());
  REQUIRE(loop.post(1).has_value());
  REQUIRE(first.get_future().wait_for(5s) == std::future_status::ready);
  for (int i = 2; i <= 100; ++i) REQUIRE(loop.post(i).has_value());
  loop.wait_idle();
  std::vector<int> expected;
  for (int i = 1; i <= 100; ++i) expected.push_back(i);
  CHECK(seen.items() == expected);
  std::lock_guard lock(seen.mutex);
  for (const auto& s : seen.steps) CHECK(s.size() == 1);  // one at a time
  for (auto id : seen.threads) CHECK(id != std::this_thread::get_id());
}

TEST_CASE("a worker loop refuses past its bound with Refused::full, counting joins, and takes items once it drains",
          "[unit][worker_loop]") {
  Seen seen;
  Gate gate;
  WorkerLoop<int> loop({.name = "eg-test", .bound = 2, .one_at_a_time = true},
                       [&](std::vector<int>& items, bool last) {
                         gate.hold(items);
                         seen.add(items, last);
                         return WorkerLoop<int>::Next{};
                       });
  REQUIRE(loop.post(0).has_value());
  gate.wait_entered();  // running: it no longer counts as waiting
  REQUIRE(loop.post(1).has_value());
  auto joined = loop.join_last([](const int& last) { return last == 1; }, [](int& last) { last = 11; });
  REQUIRE(joined.has_value());
  CHECK(*joined);  // 2 waiting now: the item and its join
  auto refused = loop.post(2);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == Refused::full);
  auto join_refused = loop.join_last([](const int&) { return true; }, [](int& last) { last = 99; });
  REQUIRE_FALSE(join_refused.has_value());
  CHECK(join_refused.error() == Refused::full);
  // A join whose test fails is no join, full or not.
  auto not_joined = loop.join_last([](const int&) { return false; }, [](int& last) { last = 99; });
  REQUIRE(not_joined.has_value());
  CHECK_FALSE(*not_joined);
  // A notice of weight 0 takes no room.
  CHECK(loop.post(3, 0).has_value());
  gate.open();
  loop.wait_idle();
  CHECK(seen.items() == std::vector<int>{0, 11, 3});
  CHECK(loop.post(4).has_value());
  loop.wait_idle();
  CHECK(seen.items() == std::vector<int>{0, 11, 3, 4});
}

namespace {

// A loop held in its step on item 0 while 1, 2 and 3 wait, stopped `how`
// from another thread: stop() waits for the step under way, and posts are
// refused from its start. Returns the 4s posted before the refusal.
int stop_while_busy(OnStop how, Seen& seen) {
  Gate gate;
  WorkerLoop<int> loop({.name = "eg-test"}, [&](std::vector<int>& items, bool last) {
    gate.hold(items);
    seen.add(items, last);
    return WorkerLoop<int>::Next{};
  });
  REQUIRE(loop.post(0).has_value());
  gate.wait_entered();
  for (int i = 1; i <= 3; ++i) REQUIRE(loop.post(i).has_value());
  auto stopped = std::async(std::launch::async, [&] { loop.stop(how); });
  CHECK(stopped.wait_for(100ms) == std::future_status::timeout);
  int accepted = 0;
  auto late = loop.post(4);
  for (int tries = 0; tries < 100 && late.has_value(); ++tries) {
    ++accepted;  // stop() had not begun yet
    std::this_thread::sleep_for(10ms);
    late = loop.post(4);
  }
  REQUIRE_FALSE(late.has_value());
  CHECK(late.error() == Refused::stopped);
  gate.open();
  REQUIRE(stopped.wait_for(5s) == std::future_status::ready);
  loop.wait_idle();  // returns at once: the thread has ended
  return accepted;
}

}  // namespace

TEST_CASE("a worker loop stopped while busy drains what waits, then steps once more as the last",
          "[unit][worker_loop]") {
  Seen seen;
  const int accepted = stop_while_busy(OnStop::drain, seen);
  std::vector<int> waited{1, 2, 3};
  waited.insert(waited.end(), static_cast<std::size_t>(accepted), 4);
  std::lock_guard lock(seen.mutex);
  // All that waited in one step (not one at a time), then the last, empty.
  CHECK(seen.steps == std::vector<std::vector<int>>{{0}, waited, {}});
  CHECK(seen.lasts == std::vector<bool>{false, false, true});
}

TEST_CASE("a worker loop stopped while busy can abandon what waits: no step after the one under way",
          "[unit][worker_loop]") {
  Seen seen;
  stop_while_busy(OnStop::abandon, seen);
  std::lock_guard lock(seen.mutex);
  CHECK(seen.steps == std::vector<std::vector<int>>{{0}});
  CHECK(seen.lasts == std::vector<bool>{false});
}

TEST_CASE("a worker loop steps again, with no items, at the deadline a step returned, or when woken",
          "[unit][worker_loop]") {
  using Clock = std::chrono::steady_clock;
  std::mutex m;
  std::vector<Clock::time_point> empty_steps;
  std::optional<Clock::time_point> asked;
  WorkerLoop<int> loop({.name = "eg-test"}, [&](std::vector<int>& items, bool) -> WorkerLoop<int>::Next {
    std::lock_guard lock(m);
    if (items.empty()) empty_steps.push_back(Clock::now());
    if (items == std::vector<int>{1}) return asked = Clock::now() + 100ms;
    return std::nullopt;
  });
  REQUIRE(loop.post(1).has_value());
  for (int tries = 0; tries < 500; ++tries) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard lock(m);
    if (!empty_steps.empty()) break;
  }
  {
    std::lock_guard lock(m);
    REQUIRE(empty_steps.size() == 1);
    REQUIRE(asked.has_value());
    CHECK(empty_steps[0] >= *asked);  // not before the deadline
  }
  // No deadline now: only wake() (or an item) brings the next step.
  std::this_thread::sleep_for(150ms);
  {
    std::lock_guard lock(m);
    CHECK(empty_steps.size() == 1);
  }
  loop.wake();
  for (int tries = 0; tries < 500; ++tries) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard lock(m);
    if (empty_steps.size() == 2) break;
  }
  std::lock_guard lock(m);
  CHECK(empty_steps.size() == 2);
}
