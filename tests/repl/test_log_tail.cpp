// A long chat log is held as its tail: the gateway's in-place writes and
// the texts it hands the committer cost the tail, not the log, and the
// commits still hold the log's exact bytes, read from the file.
#include "repl/chatlog.hpp"
#include "repl/committer.hpp"
#include "repl/tail_journal.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <string>

using repl::ChatLog;
using repl::CommitItem;
using repl::Committer;
using repl::FileChange;
using repl::TailJournal;

namespace {

struct LongLog {
  test::TempDir dir;
  editproto::Workspace ws;
  TailJournal journal;
  ChatLog log;
  std::string ref;
  LongLog()
      : ws(std::move(*editproto::Workspace::open(dir.str()))),
        journal(std::move(*TailJournal::open((dir / "journal").string()))),
        log(ws, "debug/p.md", &journal) {
    test::git_ok(dir.path(), {"init", "-q"});
    test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
    std::string text;
    for (int n = 0; text.size() < 200'000; ++n) text += "line " + std::to_string(n) + " of what was said\n";
    REQUIRE(log.create(repl::split_lines(text)).has_value());
  }
  std::string file() const { return test::read_file(dir / "debug/p.md"); }
  FileChange exchange(int n) {
    auto c = log.append({"", "```js", std::to_string(n) + " * 2", "```", "", std::to_string(n * 2)});
    REQUIRE(c.has_value());
    return std::move(*c);
  }
  void commit(Committer& committer, FileChange change, const std::string& summary) {
    CommitItem item;
    item.files = {std::move(change)};
    item.author = {"agent", "agent@example.com"};
    item.summary = summary;
    REQUIRE(committer.submit(std::move(item)).has_value());
    committer.wait_idle();
    ref = test::git_ok(dir.path(), {"for-each-ref", "--format=%(refname)", "refs/editgate/repl/"});
    ref.pop_back();
  }
  std::string committed() const { return test::git_ok(dir.path(), {"show", ref + ":p.md"}); }
};

}  // namespace

TEST_CASE("a long log's in-place writes and commit texts cost its tail, and the commit holds its exact bytes",
          "[repl]") {
  LongLog f;
  auto committer = Committer::start(f.dir.str());
  REQUIRE(committer.has_value());
  CHECK(f.log.size() == f.file().size());
  CHECK(f.log.tail().size() <= 2 * ChatLog::keep_bytes);
  CHECK(f.log.is_known(f.file()));

  FileChange first = f.exchange(1);
  CHECK(first.after_head.bytes > 0);  // in place: the head stays in the file
  CHECK(first.after_head.bytes + first.after->size() == f.file().size());
  CHECK(first.after->size() <= 2 * ChatLog::keep_bytes + 100);
  const std::string at_first = f.file();
  CHECK(repl::whole_text(first, first.after_head, *first.after) == at_first);

  // The log moves on before the first change is committed: its commit still
  // holds the log as it was then, not what came after.
  for (int n = 2; n < 400; ++n) {
    FileChange later = f.exchange(n);
    CHECK(later.after->size() <= 2 * ChatLog::keep_bytes + 100);
  }
  f.commit(**committer, std::move(first), "exchange 1");
  CHECK(f.committed() == at_first);
  CHECK(f.log.size() == f.file().size());
  CHECK(f.log.tail().size() <= 2 * ChatLog::keep_bytes);

  FileChange next = f.exchange(400);
  f.commit(**committer, std::move(next), "exchange 400");
  CHECK(f.committed() == f.file());
  test::git_ok(f.dir.path(), {"fsck", "--full", "--no-dangling"});
}

TEST_CASE("a long log changed above its tail: the stale text is not committed, and the next write reads the file",
          "[repl]") {
  LongLog f;
  auto committer = Committer::start(f.dir.str());
  REQUIRE(committer.has_value());
  f.commit(**committer, f.exchange(1), "exchange 1");
  const std::string committed = f.committed();

  // Someone saves a change at the log's top; the gateway writes in place
  // before it has read the save (its tail is as it was).
  FileChange stale = f.exchange(2);
  test::write_file(f.dir / "debug/p.md", "edited at the top\n" + f.file());
  CHECK_FALSE(repl::whole_text(stale, stale.after_head, *stale.after));
  f.commit(**committer, std::move(stale), "exchange 2");
  CHECK(f.committed() == committed);  // left out, not committed with a wrong head

  // Told so, the log's next write takes the engine's way: it finds the save,
  // says it was not seen, and its commit records the save first, then its own.
  FileChange next = f.exchange(3);
  auto unseen = f.log.take_unseen();
  REQUIRE(unseen);
  CHECK_FALSE(unseen->known);  // changed above the tail: nothing to read as appended
  CHECK(unseen->found.starts_with("edited at the top\n"));
  f.commit(**committer, std::move(next), "exchange 3");
  CHECK(f.committed() == f.file());
  const std::string subjects = test::git_ok(f.dir.path(), {"log", "--format=%s", f.ref, "-3"});
  CHECK(subjects == "exchange 3\nsaved outside editgate: debug/p.md\nexchange 1\n");
}
