// The chat logs' in-place writes: Workspace::write_tail writes only while
// nobody else has the file open and it still ends as expected; the journal
// finishes a write a crash tore; and a writer appending to the log at the
// same moment loses nothing.
#include "repl/chatlog.hpp"
#include "repl/tail_journal.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

using editproto::Workspace;
using repl::ChatLog;
using repl::TailJournal;

namespace {

struct Folder {
  test::TempDir dir;
  Workspace ws;
  Folder() : ws(std::move(*Workspace::open(dir.str()))) { std::filesystem::create_directories(dir / "debug"); }
};

}  // namespace

TEST_CASE("write_tail: only the tail changes, and only when the file still ends as expected") {
  Folder f;
  test::write_file(f.dir / "debug/a.md", "head\nold tail\n");
  auto w = f.ws.write_tail("debug/a.md", 5, "old tail\n", "new, longer tail\n");
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::written);
  CHECK(test::read_file(f.dir / "debug/a.md") == "head\nnew, longer tail\n");
  CHECK(w->stamp.size == 22);

  // Shorter: the rest is cut.
  w = f.ws.write_tail("debug/a.md", 5, "new, longer tail\n", "x\n");
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::written);
  CHECK(test::read_file(f.dir / "debug/a.md") == "head\nx\n");

  // Someone appended, or changed the tail: nothing is written.
  test::write_file(f.dir / "debug/a.md", "head\nx\nappended\n");
  w = f.ws.write_tail("debug/a.md", 5, "x\n", "y\n");
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::changed);
  test::write_file(f.dir / "debug/a.md", "head\nz\n");
  w = f.ws.write_tail("debug/a.md", 5, "x\n", "y\n");
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::changed);
  CHECK(test::read_file(f.dir / "debug/a.md") == "head\nz\n");

  // Open in another program (here, a descriptor of our own kept open): no
  // lease, nothing written.
  int fd = ::open((f.dir / "debug/a.md").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  w = f.ws.write_tail("debug/a.md", 5, "z\n", "y\n");
  ::close(fd);
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::unavailable);
  CHECK(test::read_file(f.dir / "debug/a.md") == "head\nz\n");

  w = f.ws.write_tail("debug/gone.md", 0, "", "y\n");
  REQUIRE(w.has_value());
  CHECK(w->outcome == Workspace::Tail::changed);
  CHECK_FALSE(std::filesystem::exists(f.dir / "debug/gone.md"));
}

TEST_CASE("tail journal: a write a crash tore is finished at the next start; anything else is left alone") {
  Folder f;
  const std::string head = "# log\n\nrequest\n";
  const std::string old_tail = "_running 0 s_\n", new_tail = "reply line one\nreply line two\n";
  const std::string short_tail = "ok\n";
  auto recover_from = [&](const std::string& file, const std::string& from, const std::string& to) {
    test::write_file(f.dir / "debug/p.md", file);
    auto j = TailJournal::open((f.dir / "journal").string());
    REQUIRE(j.has_value());
    REQUIRE(j->record("debug/p.md", head.size(), from, to).has_value());
    auto r = j->recover(f.ws);
    REQUIRE(r.has_value());
    // The record is cleared: a second start finds nothing.
    auto again = j->recover(f.ws);
    REQUIRE(again.has_value());
    CHECK(again->found == TailJournal::Found::nothing);
    return r->found;
  };
  // Torn after m bytes of the new tail, the old tail's rest still there.
  for (std::size_t m : {std::size_t{1}, std::size_t{5}, old_tail.size(), new_tail.size() - 1}) {
    std::string torn = head + new_tail.substr(0, m);
    if (m < old_tail.size()) torn += old_tail.substr(m);
    INFO("torn after " << m << " bytes");
    CHECK(recover_from(torn, old_tail, new_tail) == TailJournal::Found::repaired);
    CHECK(test::read_file(f.dir / "debug/p.md") == head + new_tail);
  }
  // A shorter tail written, the cut not made.
  CHECK(recover_from(head + short_tail + old_tail.substr(short_tail.size()), old_tail, short_tail) ==
        TailJournal::Found::repaired);
  CHECK(test::read_file(f.dir / "debug/p.md") == head + short_tail);
  // Whole, either way.
  CHECK(recover_from(head + new_tail, old_tail, new_tail) == TailJournal::Found::complete);
  CHECK(recover_from(head + old_tail, old_tail, new_tail) == TailJournal::Found::complete);
  CHECK(test::read_file(f.dir / "debug/p.md") == head + old_tail);
  // Edited by someone after the crash: left as it is.
  const std::string edited = head + "reply line one\nsomeone's own line\n";
  CHECK(recover_from(edited, old_tail, new_tail) == TailJournal::Found::changed_since);
  CHECK(test::read_file(f.dir / "debug/p.md") == edited);
  // A record the crash cut short is no record.
  test::write_file(f.dir / "debug/p.md", head + "r");
  {
    auto j = TailJournal::open((f.dir / "journal").string());
    REQUIRE(j.has_value());
    REQUIRE(j->record("debug/p.md", head.size(), old_tail, new_tail).has_value());
  }
  std::filesystem::resize_file(f.dir / "journal", std::filesystem::file_size(f.dir / "journal") - 3);
  auto j = TailJournal::open((f.dir / "journal").string());
  auto r = j->recover(f.ws);
  REQUIRE(r.has_value());
  CHECK(r->found == TailJournal::Found::nothing);
  CHECK(test::read_file(f.dir / "debug/p.md") == head + "r");
}

TEST_CASE("chat log in place: the log's writes go in place, and an appender writing at the same time loses nothing") {
  Folder f;
  auto journal = TailJournal::open((f.dir / "journal").string());
  REQUIRE(journal.has_value());
  ChatLog log(f.ws, "debug/p.md", &*journal);
  REQUIRE(log.create({"# p", "", "---"}).has_value());
  const auto first = f.ws.stat("debug/p.md");
  auto done = log.replace({"---"}, {"request 0", "_running_"});
  REQUIRE(done.has_value());
  // In place: the same file, not a new one renamed over it.
  CHECK(f.ws.stat("debug/p.md")->ino == first->ino);
  CHECK(*done->before == "# p\n\n---\n");
  CHECK(*done->after == "# p\n\nrequest 0\n_running_\n");

  // An agent appending lines to the log (one write each, O_APPEND, as file
  // agents do) while the gateway writes its replies and next requests.
  const std::string path = (f.dir / "debug/p.md").string();
  std::atomic<bool> stop{false};
  std::atomic<unsigned> appended{0};
  std::thread agent([&] {
    for (unsigned n = 1; !stop.load() && n <= 3000; ++n) {
      int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      if (fd < 0) break;
      const std::string line = "appended " + std::to_string(n) + "\n";
      const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
      ::close(fd);
      if (!ok) break;
      appended.store(n);
    }
  });
  unsigned replies = 0;
  for (unsigned i = 0; i < 400; ++i) {
    auto r = log.replace({"_running_"}, {"reply " + std::to_string(i)}, true);
    if (r) ++replies;
    if (!log.append({"request " + std::to_string(i + 1), "_running_"})) break;
  }
  stop.store(true);
  agent.join();
  const std::string text = test::read_file(f.dir / "debug/p.md");
  unsigned lost = 0;
  for (unsigned n = 1; n <= appended.load(); ++n)
    if (text.find("appended " + std::to_string(n) + "\n") == std::string::npos) ++lost;
  INFO("appended " << appended.load() << ", replies written " << replies);
  CHECK(appended.load() > 0);
  CHECK(replies > 0);
  CHECK(lost == 0);
  CHECK(text.find("reply " + std::to_string(replies - 1) + "\n") != std::string::npos);
}
