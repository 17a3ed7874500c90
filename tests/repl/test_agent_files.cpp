// The status files' thread: under load, what is asked within one gathering
// pause is one batch, and a file replaced again in it is written once, last;
// appends and erases keep their order; flush() does not wait out the pause.
#include "repl/agent_files.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <thread>

TEST_CASE("status files: a file replaced again within one gathering pause is written once, last") {
  test::TempDir dir;
  // A pause longer than the test: only flush() ends it.
  repl::AgentFiles files(dir.str(), std::chrono::seconds(30));
  files.put("pages/p/status.json", "0\n");
  files.flush();  // a batch just ran: the next one waits for the pause
  const std::uint64_t before = files.written();
  for (int i = 1; i <= 100; ++i) {
    files.put("pages/p/status.json", std::to_string(i) + "\n");
    files.append("pages/p/chat_history.jsonl", std::to_string(i) + "\n");
    // Spread over 100 ms, as a busy page's states come: without the pause
    // the thread would write nearly every one.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  files.erase("pages/p/ready.marker");
  files.put("pages/p/ready.marker", "7\n");
  files.flush();
  CHECK(test::read_file(dir / "pages/p/status.json") == "100\n");
  CHECK(test::read_file(dir / "pages/p/ready.marker") == "7\n");
  std::string history;
  for (int i = 1; i <= 100; ++i) history += std::to_string(i) + "\n";
  CHECK(test::read_file(dir / "pages/p/chat_history.jsonl") == history);
  // The 100 appends, status.json once and ready.marker once (its erase
  // superseded), not 100 + 100 + 2 writes.
  CHECK(files.written() - before == 102);
}

TEST_CASE("status files: after a quiet spell the first write goes out without waiting") {
  test::TempDir dir;
  repl::AgentFiles files(dir.str(), std::chrono::seconds(30));
  // No batch ran yet: the pause is over before it starts, so the file appears
  // with no flush() to cut it short.
  files.put("pages/q/status.json", "1\n");
  for (int i = 0; i < 500 && files.written() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(test::read_file(dir / "pages/q/status.json") == "1\n");
}
