// debug.md's writer (repl/registry_file.hpp) in-process: a burst of changes
// is one write after the delay; write is at once; stop drops a pending one.
#include "repl/registry_file.hpp"
#include "support.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include <filesystem>

using namespace std::chrono_literals;

namespace {

struct Fixture {
  test::TempDir dir;
  boost::asio::io_context io;
  std::optional<editproto::Workspace> ws;
  int asked = 0;
  std::string state = "idle";
  std::optional<repl::RegistryFile> file;

  Fixture() {
    test::git_ok(dir.path(), {"init", "-q"});
    ws.emplace(*editproto::Workspace::open(dir.str()));
    file.emplace(*ws, io.get_executor(), 10, [this] {
      ++asked;
      return std::vector<repl::RegistryLine>{
          {"tab-1a2b", "http://x", "debug/tab-1a2b.md", state, std::chrono::system_clock::now(), true}};
    }, 50ms);
  }
  bool written() const { return std::filesystem::exists(dir / "debug.md"); }
};

}  // namespace

TEST_CASE("debug.md follows a burst of changes with one write, after the delay", "[repl][unit]") {
  Fixture f;
  f.file->changed();
  f.state = "executing job 7";
  f.file->changed();
  f.io.poll();
  CHECK_FALSE(f.written());
  CHECK(f.asked == 0);
  f.io.run_for(200ms);
  REQUIRE(f.written());
  CHECK(f.asked == 1);
  const std::string text = test::read_file(f.dir / "debug.md");
  CHECK(text.find("* tab-1a2b (http://x) last ") != std::string::npos);
  CHECK(text.find(" state: executing job 7 [log](debug/tab-1a2b.md)\n") != std::string::npos);

  // The next change is a write of its own.
  f.state = "idle";
  f.file->changed();
  f.io.restart();
  f.io.run_for(200ms);
  CHECK(f.asked == 2);
  CHECK(test::read_file(f.dir / "debug.md").find(" state: idle [log]") != std::string::npos);
}

TEST_CASE("debug.md's write is at once, and a stop drops the pending one", "[repl][unit]") {
  Fixture f;
  f.file->write();
  CHECK(f.written());
  CHECK(f.asked == 1);
  f.file->changed();
  f.file->stop();
  f.io.run_for(200ms);
  CHECK(f.asked == 1);
}
