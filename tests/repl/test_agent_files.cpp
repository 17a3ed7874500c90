// The agents' files written without a new inode per update
// (repl/agent_files.hpp): each file and its hidden spare trade places.
#include "repl/agent_files.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>

#include <sys/stat.h>

#include <set>
#include <string>

namespace {

ino_t inode_of(const std::filesystem::path& p) {
  struct stat st;
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_CASE("status.json updated many times uses two inodes and always reads whole", "[repl][unit]") {
  test::TempDir dir;
  const auto page = dir.path() / "pages" / "tab-1";
  std::set<ino_t> inodes;
  {
    repl::AgentFiles files(dir.path().string());
    for (int i = 0; i < 20; ++i) {
      // Longer and shorter texts in turn: a shorter one is padded, never cut.
      std::string message(i % 2 ? 200 : 3, 'x');
      files.status("tab-1", {{"job", i}, {"message", message}});
      files.flush();
      inodes.insert(inode_of(page / "status.json"));
      const auto st = boost::json::parse(test::read_file(page / "status.json")).as_object();
      CHECK(st.at("job") == i);
      CHECK(st.at("message").as_string().size() == message.size());
    }
  }
  CHECK(inodes.size() == 2);
  CHECK(std::filesystem::exists(page / ".status.json.spare"));
}

TEST_CASE("a marker that comes and goes reuses its inode, and its number reads back exactly", "[repl][unit]") {
  test::TempDir dir;
  const auto page = dir.path() / "pages" / "tab-1";
  repl::AgentFiles files(dir.path().string());
  std::set<ino_t> inodes;
  for (std::uint64_t n = 8; n < 12; ++n) {
    files.marker("tab-1", "ready.marker", n);
    files.flush();
    inodes.insert(inode_of(page / "ready.marker"));
    CHECK(test::read_file(page / "ready.marker") == std::to_string(n) + "\n");
    CHECK(repl::marker_number((page / "ready.marker").string()) == n);
    files.erase("pages/tab-1/ready.marker");
    files.flush();
    CHECK_FALSE(std::filesystem::exists(page / "ready.marker"));
  }
  CHECK(inodes.size() == 1);
}

TEST_CASE("a link where the agents' page folder should be is not written through", "[repl][unit]") {
  test::TempDir dir, elsewhere;
  std::filesystem::create_directories(dir.path() / "pages");
  std::filesystem::create_directory_symlink(elsewhere.path(), dir.path() / "pages" / "tab-1");
  repl::AgentFiles files(dir.path().string());
  files.status("tab-1", {{"job", 1}});
  files.marker("tab-1", "ack.marker", 1);
  files.flush();
  CHECK(test::count_entries(elsewhere.path()) == 0);
}

TEST_CASE("the chat history kept open for appends follows a removed file and moves aside past its limit", "[repl][unit]") {
  test::TempDir dir;
  const auto history = dir.path() / "pages" / "tab-1" / "chat_history.jsonl";
  repl::AgentFiles files(dir.path().string());
  files.record("tab-1", {{"job", 1}});
  files.flush();
  std::filesystem::remove(history);  // someone cleans up
  files.record("tab-1", {{"job", 2}});
  files.flush();
  REQUIRE(std::filesystem::exists(history));
  CHECK(test::read_file(history).find("\"job\":2") != std::string::npos);
  CHECK(test::read_file(history).find("\"job\":1") == std::string::npos);
  // Past the limit the file becomes .1 and the next record starts a new one.
  const std::string big(repl::AgentFiles::append_limit, 'x');
  files.record("tab-1", {{"job", 3}, {"text", big}});
  files.record("tab-1", {{"job", 4}});
  files.flush();
  CHECK(test::read_file(history.string() + ".1").find("\"job\":3") != std::string::npos);
  CHECK(test::read_file(history).find("\"job\":4") != std::string::npos);
  CHECK(test::read_file(history).find("\"job\":3") == std::string::npos);
}
