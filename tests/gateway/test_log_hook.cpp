// The gateway is a library: what it tells the person running it goes
// through the log hook (repl/log.hpp) the program installs, never straight
// to std::cerr.
#include "gateway/inbox.hpp"
#include "services/gateway.hpp"
#include "services/worker.hpp"
#include "repl/log.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Holds what reaches the hook and what reaches std::cerr while it lives.
class Captured {
 public:
  Captured() : cerr_(std::cerr.rdbuf(seen_.rdbuf())) {
    repl::set_log_sink([this](std::string_view line) {
      const std::lock_guard<std::mutex> hold(mutex_);
      lines_.emplace_back(line);
    });
  }
  ~Captured() {
    repl::set_log_sink({});
    std::cerr.rdbuf(cerr_);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;

  std::vector<std::string> lines() {
    const std::lock_guard<std::mutex> hold(mutex_);
    return lines_;
  }
  std::string cerr() const { return seen_.str(); }

 private:
  std::ostringstream seen_;
  std::streambuf* cerr_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace

TEST_CASE("the gateway logs an inbox message's run and an answer it cannot write through the hook",
          "[gateway][log][unit]") {
  test::TempDir dir;
  // The agents' folder (.git/editgate/ when serve runs) may be any folder.
  const std::string agents = (dir / "agents").string();
  test::write_file(dir / "agents/inbox/note.md", "no edit blocks in this message\n");
  // A folder where the answer's file goes: the answer cannot be written.
  test::fs::create_directories(dir / "agents/outbox/note.json/x");
  Captured captured;
  {
    auto worker = services::Worker::open(dir.str());
    REQUIRE(worker);
    services::Gateway gw(services::Binding{}, "cookie", **worker, services::ServeLimits{}, "workspace");
    // The inbox is watched on the worker's thread; the door's run and its
    // answer stay there, and join() lets them finish.
    (*worker)->post([&] { gateway::take_inbox(gw, agents, "note.md", [] { return std::uint64_t{1}; }); });
    (*worker)->join();
  }
  const std::vector<std::string> lines = captured.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("inbox note.md, agent agent, session ", 0) == 0);
  CHECK(lines[1] == "cannot answer inbox/note.md in " + agents + "/outbox");
  CHECK(captured.cerr().empty());
}
