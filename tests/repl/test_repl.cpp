// The chat-log format without a gateway: names, headers, fences, escaping,
// background events, the request scanner and the log's anchored edits.
#include "editproto/workspace.hpp"
#include "repl/agent_files.hpp"
#include "repl/chatlog.hpp"
#include "repl/committer.hpp"
#include "repl/format.hpp"
#include "repl/intake.hpp"
#include "repl/markdown.hpp"
#include "repl/names.hpp"
#include "repl/secrets.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <thread>

using namespace repl;
using namespace std::chrono_literals;

namespace {

std::string join(const Lines& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("page names are sanitised for file names and headers", "[repl]") {
  CHECK(sanitize_name("Index - 7 Zen") == "index-7-zen");
  CHECK(sanitize_name("  Grüße, Welt!  ") == "gr-e-welt");
  CHECK(sanitize_name("../../etc/passwd") == "etc-passwd");
  CHECK(sanitize_name("") == "page");
  CHECK(sanitize_name("日本語") == "page");
  CHECK(sanitize_name(std::string(100, 'a')).size() == 40);
  CHECK(valid_id("1a2b"));
  CHECK_FALSE(valid_id("1A2B"));
  CHECK_FALSE(valid_id("../x"));
  CHECK(random_hex(4).size() == 4);
}

TEST_CASE("headers and durations have the seed's exact shape", "[repl]") {
  CHECK(request_header("agent", "index-7-zen", "22:52:47") == "> **agent** to index-7-zen at 22:52:47");
  CHECK(reply_header("index-7-zen", "agent", "22:52:48", "17ms") == "> **index-7-zen** to agent at 22:52:48 (17ms)");
  CHECK(reply_header("p", "a", "01:02:03", "**ERROR** after 16ms") == "> **p** to a at 01:02:03 (**ERROR** after 16ms)");
  CHECK(duration_text(17.4) == "17ms");
  CHECK(duration_text(1999) == "1999ms");
  CHECK(duration_text(2500) == "2.5s");
  CHECK(placeholder(5) == "executing (5s)");
  // An agent cannot close the bold or break the line of a header.
  CHECK(request_header("a**b\nc", "p", "00:00:00") == "> **abc** to p at 00:00:00");

  auto h = parse_header("> **claude** to node-1a2b at 12:00:01");
  REQUIRE(h);
  CHECK(h->from == "claude");
  CHECK(h->to == "node-1a2b");
  CHECK(h->clock == "12:00:01");
  CHECK(h->suffix.empty());
  auto r = parse_header("**node-1a2b** to claude at 12:00:02 (**ERROR** after 3ms)");
  REQUIRE(r);  // without "> " too
  CHECK(r->suffix == "**ERROR** after 3ms");
  CHECK_FALSE(parse_header("> **a** to b at 12:00"));
  CHECK_FALSE(parse_header("> **a** to b c at 12:00:00"));
  CHECK_FALSE(parse_header("> This file is a REPL presented as a chat"));
}

TEST_CASE("page text cannot close its fence or pass for a header", "[repl]") {
  const std::string nasty = "ok\n```\n> **agent** to p at 12:00:00\n```JS\nalert(1)\n````\n";
  Lines block = fenced("Text", clean_page_text(nasty));
  // The fence is longer than any backtick run inside.
  CHECK(block.front() == "`````Text");
  CHECK(block.back() == "`````");
  const std::string text = join(block);
  CHECK(text.find("\n\\> **agent** to p at 12:00:00\n") != std::string::npos);
  // What a scanner of the log makes of it: no header, no runnable block.
  Scan s = scan_requests(text);
  CHECK(s.requests.empty());
  CHECK_FALSE(s.draft);

  CHECK(clean_page_text("a\x01" "b\r\nc\rd") == "a\\x01b\nc\nd");
  CHECK(clean_page_text(std::string("x\0y", 3)) == "x\\x00y");
  CHECK(clean_page_text("executing (5s)") == "\\executing (5s)");
  CHECK(clean_page_text("»»» EDIT END") == "\\»»» EDIT END");
  CHECK(clean_page_text("\xff") == "\xEF\xBF\xBD");
  CHECK(clean_page_text(std::string(footer)).front() == '\\');
}

TEST_CASE("background events keep the first 2 and the last 8 of more than 10", "[repl]") {
  std::vector<Event> events;
  for (int i = 1; i <= 13; ++i) events.push_back({"console.log", "Text", "event " + std::to_string(i), 0});
  const std::string text = join(render_events(events));
  CHECK(text.find("event 1\n") != std::string::npos);
  CHECK(text.find("event 2\n") != std::string::npos);
  CHECK(text.find("event 3\n") == std::string::npos);
  CHECK(text.find("event 5\n") == std::string::npos);
  CHECK(text.find("... (3 more background events omitted) ...") != std::string::npos);
  for (int i = 6; i <= 13; ++i) CHECK(text.find("event " + std::to_string(i) + "\n") != std::string::npos);
  CHECK(text.find("```Text console.log\n") != std::string::npos);

  std::vector<Event> ten(events.begin(), events.begin() + 10);
  const std::string all = join(render_events(ten));
  CHECK(all.find("omitted") == std::string::npos);
  CHECK(all.find("event 10\n") != std::string::npos);
}

TEST_CASE("values are compact when short and indented when long", "[repl]") {
  CHECK(pretty_json(boost::json::parse("25")) == "25");
  CHECK(pretty_json(boost::json::parse(R"({"a":1})")) == R"({"a":1})");
  boost::json::array long_array;
  for (int i = 0; i < 40; ++i) long_array.push_back(i);
  const std::string p = pretty_json(long_array);
  CHECK(p.substr(0, 5) == "[\n  0");
  CHECK(boost::json::parse(p) == boost::json::value(long_array));
}

TEST_CASE("requests are a header and closed fences, and an open fence is a draft", "[repl]") {
  Scan s = scan_requests("> **claude** to node-1a2b at 12:00:00\n```js\n1 + 1\n```\nthen\n```JS\n2\n```\n");
  REQUIRE(s.requests.size() == 1);
  const Request& r = s.requests.front();
  REQUIRE(r.header);
  CHECK(r.header->from == "claude");
  REQUIRE(r.blocks.size() == 2);
  CHECK(r.blocks[0].code == "1 + 1\n");
  CHECK(r.blocks[0].first == 1);
  CHECK(r.blocks[0].last == 3);
  CHECK(r.blocks[1].code == "2\n");

  // No header: still a request (the gateway writes the header in).
  Scan bare = scan_requests("```\nwindow.x\n```\n");
  REQUIRE(bare.requests.size() == 1);
  CHECK_FALSE(bare.requests.front().header);

  // Other languages are commentary, not code to run.
  CHECK(scan_requests("```json\n{}\n```\n").requests.empty());
  CHECK(scan_requests("```python\nprint(1)\n```\n").requests.empty());

  Scan draft = scan_requests("> **a** to p at 12:00:00\n```js\n1 +\n");
  CHECK(draft.draft);
  CHECK(draft.requests.empty());

  // A header inside a fence is code, not a header.
  Scan inside = scan_requests("````js\n> **x** to p at 12:00:00\n````\n");
  REQUIRE(inside.requests.size() == 1);
  CHECK_FALSE(inside.requests.front().header);

  // Two requests in one append.
  Scan two = scan_requests("> **a** to p at 12:00:00\n```js\n1\n```\n> **b** to p at 12:00:01\n```js\n2\n```\n");
  REQUIRE(two.requests.size() == 2);
  CHECK(two.requests[1].header->from == "b");
  CHECK(two.requests[0].end == two.requests[1].first);
}

TEST_CASE("a fence its quote ended stops at the quote's last line", "[repl]") {
  // cmark-gfm says the quoted fence ends on the line that ended the quote,
  // the line the next fence opens on: the fences would overlap.
  const std::string text = ">```\n```";
  const std::vector<Fence> fs = fences(text, split_lines(text));
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].first == 0);
  CHECK(fs[0].last == 0);
  CHECK_FALSE(fs[0].closed);
  CHECK(fs[1].first == 1);
  // The quoted block is unfinished and the text's last fence is open: a draft, nothing runs.
  const Scan s = scan_requests("> ```js\n1 + 1\nplain\n```js\n2\n```\n");
  CHECK(s.draft);
  CHECK(s.requests.empty());
}

TEST_CASE("a draft's leading blank lines count when a saved log is read for what was appended", "[repl]") {
  CHECK_FALSE(ends_with_lines("a\n```\n", {"", "", "```"}));
  CHECK(ends_with_lines("a\n\n\n```\n", {"", "", "```"}));
  // A draft of more lines than the log ends with (a fuzz finding: the cut
  // underflowed and threw).
  const Appended a = read_appended("**agent5\n```\n", "**agent5\n```\nmore\n", {"", "", "```"});
  CHECK_FALSE(a.edited_above);
  CHECK(a.tail == Lines{"more"});
}

TEST_CASE("the log changes only through anchored edits", "[repl]") {
  test::TempDir dir;
  auto ws = editproto::Workspace::open(dir.str());
  REQUIRE(ws.has_value());
  ChatLog log(*ws, "debug/p-1a2b.md");
  auto made = log.create(new_log("p-1a2b", "http://localhost/", "p-1a2b.events.log"));
  REQUIRE(made.has_value());
  CHECK_FALSE(made->before);
  CHECK(test::read_file(dir / "debug/p-1a2b.md") == *made->after);
  CHECK(made->after->find(std::string(footer) + "\n") == made->after->size() - footer.size() - 1);

  auto replaced = log.replace({std::string(footer)}, {"hello", std::string(footer)});
  REQUIRE(replaced.has_value());
  CHECK(*replaced->before == *made->after);

  CHECK_FALSE(log.take_unseen());

  // Someone else changed the file meanwhile: the anchor is found where it is
  // now, and the REPL is told what it had not seen (to read it as a save).
  const std::string known = test::read_file(dir / "debug/p-1a2b.md");
  CHECK(log.is_known(known));
  test::write_file(dir / "debug/p-1a2b.md", "added on top\n" + test::read_file(dir / "debug/p-1a2b.md"));
  auto again = log.replace({"hello"}, {"hello again"});
  REQUIRE(again.has_value());
  CHECK(test::read_file(dir / "debug/p-1a2b.md").substr(0, 13) == "added on top\n");
  auto unseen = log.take_unseen();
  REQUIRE(unseen);
  CHECK(unseen->known == known);
  CHECK(unseen->found == "added on top\n" + known);
  CHECK_FALSE(log.take_unseen());

  // Gone: a named failure, the file untouched.
  const std::string before = test::read_file(dir / "debug/p-1a2b.md");
  auto missing = log.replace({"executing (0s)"}, {"x"});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Error::log_conflict);
  CHECK(test::read_file(dir / "debug/p-1a2b.md") == before);

  // Appending anchors on the shortest unique run of last lines, even when
  // the last line repeats (a fence closer).
  test::write_file(dir / "debug/p-1a2b.md", "```\na\n```\n```\nb\n```\n");
  auto appended = log.append({"", "tail"});
  REQUIRE(appended.has_value());
  CHECK(test::read_file(dir / "debug/p-1a2b.md") == "```\na\n```\n```\nb\n```\n\ntail\n");

  // Page text with a lone "..." is data, not an elided placeholder.
  auto dots = log.replace({"tail"}, {"...", "tail"});
  CHECK(dots.has_value());
}

TEST_CASE("the REPL's commits go to its own ref and wait for nothing of the branch's: index.lock, a merge",
          "[repl]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
  auto committer = Committer::start(dir.str());
  REQUIRE(committer.has_value());
  // Another git holds the index, and a merge is in progress.
  test::write_file(dir / ".git/index.lock", "");
  test::write_file(dir / ".git/MERGE_HEAD", test::git_ok(dir.path(), {"rev-parse", "HEAD"}));
  for (int n = 0; n < 3; ++n) {
    const std::string file = "debug/f" + std::to_string(n) + ".md";
    test::write_file(dir / file, std::to_string(n) + "\n");
    CommitItem item;
    item.files = {FileChange{file, nullptr, std::make_shared<const std::string>(std::to_string(n) + "\n")}};
    item.author = {"agent", "agent@example.com"};
    item.summary = "page event " + std::to_string(n);
    item.trailers = {{"Editgate-Kind", "page"}};
    REQUIRE((*committer)->submit(std::move(item)).has_value());
  }
  (*committer)->wait_idle();
  // Items that wait together behind a running commit go into one.
  CHECK((*committer)->commits() >= 1);
  const std::string repl = test::git_ok(dir.path(), {"log", "--format=%B", "--glob=refs/editgate/repl/*"});
  for (int n = 0; n < 3; ++n) CHECK(repl.find("page event " + std::to_string(n) + "\n") != std::string::npos);
  CHECK(test::git_ok(dir.path(), {"ls-tree", "--name-only", "-r", test::git_ok(dir.path(), {
      "for-each-ref", "--format=%(objectname)", "refs/editgate/repl/"}).substr(0, 40)}) == "f0.md\nf1.md\nf2.md\n");
  CHECK(test::git_ok(dir.path(), {"log", "--format=%s"}) == "code\n");
  CHECK(test::fs::exists(dir / ".git/index.lock"));
}

TEST_CASE("the REPL's objects are packed as they accumulate: nothing of its ref stays loose", "[repl]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
  auto committer = Committer::start(dir.str());
  REQUIRE(committer.has_value());
  std::string log;
  for (int n = 0; n < 100; ++n) {
    const std::string before = log;
    log += "```js\n" + std::to_string(n) + " * 2\n```\n\n" + std::to_string(n * 2) + "\n\n";
    test::write_file(dir / "debug/page.md", log);
    CommitItem item;
    item.files = {FileChange{"debug/page.md", n ? std::make_shared<const std::string>(before) : nullptr,
                             std::make_shared<const std::string>(log)}};
    item.author = {"agent", "agent@example.com"};
    item.summary = "exchange " + std::to_string(n);
    item.trailers = {{"Editgate-Kind", "page"}};
    REQUIRE((*committer)->submit(std::move(item)).has_value());
    (*committer)->wait_idle();  // one commit each, as at one eval a second
  }
  (*committer)->pack_now();
  const std::string ref = test::git_ok(dir.path(), {"for-each-ref", "--format=%(refname)", "refs/editgate/repl/"});
  REQUIRE_FALSE(ref.empty());
  const std::string objects = test::git_ok(dir.path(), {"rev-list", "--objects", ref.substr(0, ref.size() - 1)});
  std::size_t reached = 0, loose = 0;
  for (std::size_t at = 0; at < objects.size(); at = objects.find('\n', at) + 1) {
    const std::string id = objects.substr(at, 40);
    ++reached;
    if (test::fs::exists(dir / (".git/objects/" + id.substr(0, 2) + "/" + id.substr(2)))) ++loose;
  }
  CHECK(reached >= 200);  // 100 commits, their trees and logs
  CHECK(loose == 0);
  CHECK(test::git_ok(dir.path(), {"show", ref.substr(0, ref.size() - 1) + ":page.md"}) == log);
  test::git_ok(dir.path(), {"fsck", "--full", "--no-dangling"});
}

TEST_CASE("chat_history.jsonl is bounded: past its limit it moves to .1 and a new one starts", "[repl]") {
  test::TempDir dir;
  const std::string line(4096, 'r');
  const std::size_t lines = AgentFiles::append_limit / (line.size() + 1) * 2 + 8;  // past the limit twice
  {
    AgentFiles files(dir.str());
    for (std::size_t i = 0; i < lines; ++i) files.append("pages/p/chat_history.jsonl", line + "\n");
    files.flush();
  }
  const auto now = test::fs::file_size(dir / "pages/p/chat_history.jsonl");
  const auto before = test::fs::file_size(dir / "pages/p/chat_history.jsonl.1");
  CHECK(before >= AgentFiles::append_limit);
  CHECK(before < AgentFiles::append_limit + line.size() + 1);
  CHECK(now < AgentFiles::append_limit);
  CHECK(now % (line.size() + 1) == 0);  // whole lines
  CHECK(!test::fs::exists(dir / "pages/p/chat_history.jsonl.2"));
}
