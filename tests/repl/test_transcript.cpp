// The REPL's pure parts, apart from any page or gateway: the transcript's
// blocks (repl/transcript.hpp) and debug.md (repl/page_registry.hpp); and
// a page's PageLog (repl/page_log.hpp), which writes the blocks into its files.
#include "repl/page_log.hpp"
#include "repl/page_registry.hpp"
#include "repl/transcript.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace repl;

namespace {

// A page log in a temp workspace, saying which paths it was about to write.
struct LogFolder {
  test::TempDir dir;
  editproto::Workspace ws;
  std::vector<std::string> about_to_write;
  PageLog log;
  explicit LogFolder(std::size_t inline_bytes = 1000)
      : ws(std::move(*editproto::Workspace::open(dir.str()))),
        log(ws, "tab-1", nullptr, [this](const std::string& path) { about_to_write.push_back(path); }, inline_bytes) {
    std::filesystem::create_directories(dir / "debug");
  }
  std::string file(const std::string& path) const { return test::read_file(dir / path); }
};

std::string joined(const Lines& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("a reply block holds the header, the body, the job's output and what was not kept", "[unit][transcript]") {
  Options bounds;
  bounds.max_events_kept = 2;
  bounds.max_event_bytes_kept = 4096;
  const std::vector<Event> events{{"console.log", "Text", "hello", 0}};
  const Lines reply = reply_block("> **p-1** to agent at 12:00:00 (5ms)", {"```JSON", "1", "```"}, events, 3, bounds);
  REQUIRE(reply.size() >= 5);
  CHECK(reply.front() == "> **p-1** to agent at 12:00:00 (5ms)");
  CHECK(reply[1] == "```JSON");
  CHECK(joined(reply).find("hello") != std::string::npos);
  CHECK(reply.back() == "(3 more events were not kept: past 2 events or 4 KiB of output they are only counted)");
  // Nothing dropped: no note.
  const Lines quiet = reply_block("h", {}, {}, 0, bounds);
  CHECK(quiet == Lines{"h"});
}

TEST_CASE("a result's value and error read as the log shows them", "[unit][transcript]") {
  CHECK(json::parse(result_text(json::parse(R"({"ok":true,"value":{"a":[1,"x"]}})").as_object())) ==
        json::parse(R"({"a":[1,"x"]})"));
  CHECK(json::parse(result_text(json::parse(R"({"ok":true})").as_object())) == json::parse(R"({"$undefined":true})"));

  // A stack without its message gets "Name: message" in front.
  const Lines firefox = error_block(json::parse(R"({"ok":false,"error":{"name":"TypeError","message":"x is null",
                                                   "stack":"@debugger eval code:1:1"}})").as_object());
  CHECK(joined(firefox).find("TypeError: x is null\n@debugger eval code:1:1") != std::string::npos);
  // No stack: the name and message; no error object at all: "Error: ".
  CHECK(joined(error_block(json::parse(R"({"ok":false,"error":{"name":"E","message":"m"}})").as_object()))
            .find("E: m") != std::string::npos);
  CHECK(joined(error_block(json::parse(R"({"ok":false})").as_object())).find("Error: ") != std::string::npos);
}

TEST_CASE("an archived value points to its file and shows a head cut on a character boundary", "[unit][transcript]") {
  // 999 ASCII bytes, then a 3-byte character across the 1000-byte cut.
  const std::string text = std::string(999, 'a') + "\xE2\x82\xAC" + std::string(500, 'b');
  const Lines lines = archived_value(text, "debug-archive/p-1-job7-00ff.json");
  REQUIRE(!lines.empty());
  CHECK(lines.front() == "The result is 1502 bytes of JSON, in [debug-archive/p-1-job7-00ff.json]"
                         "(../debug-archive/p-1-job7-00ff.json); it begins:");
  const std::string body = joined(lines);
  CHECK(body.find(std::string(999, 'a') + "\n…") != std::string::npos);  // the half character is gone
  CHECK(body.find("\xE2\x82") == std::string::npos);
}

TEST_CASE("a job left executing becomes an interrupted reply; only the placeholder counts", "[unit][transcript]") {
  CHECK(is_placeholder("executing (0s)"));
  CHECK(is_placeholder("executing (125s)"));
  CHECK_FALSE(is_placeholder("executing (5 s)"));
  CHECK_FALSE(is_placeholder("executing ()"));
  CHECK_FALSE(is_placeholder("> executing (5s)"));
  const Lines reply = interrupted_reply(Header{"p-1", "agent", "12:00:00", ""}, "12:30:00");
  REQUIRE(reply.size() >= 2);
  CHECK(parse_header(reply.front()).has_value());
  CHECK(parse_header(reply.front())->suffix == "**ERROR** interrupted");
  CHECK(joined(reply).find("started again at 12:30:00") != std::string::npos);
}

TEST_CASE("the events log indents continuation lines and keeps empty events", "[unit][transcript]") {
  const std::string text = events_log_text({{"console.log", "Text", "one\ntwo", 0}, {"console.warn", "Text", "", 0}});
  const Lines lines = split_lines(text);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].ends_with(" console.log: one"));
  CHECK(lines[1] == "    two");
  CHECK(lines[2].ends_with(" console.warn: "));
}

TEST_CASE("debug.md lists live pages first, the disconnected seen last next, and counts the rest",
          "[unit][page_registry]") {
  const auto t0 = std::chrono::system_clock::now();
  std::vector<RegistryLine> pages;
  for (int i = 0; i < 3; ++i)
    pages.push_back({"live-" + std::to_string(i), "http://a/", "debug/live.md", "idle", t0, true});
  for (int i = 0; i < 4; ++i)  // gone-3 was seen last
    pages.push_back({"gone-" + std::to_string(i), "http://a/", "debug/gone.md", "disconnected",
                     t0 + std::chrono::seconds(i), false});
  const std::string text = registry_text(pages, 2, 2);
  CHECK(text.starts_with("# Connected pages:\n"));
  const auto at = [&](const std::string& s) { return text.find("* " + s + " "); };
  CHECK(at("live-0") < at("live-1"));
  CHECK(at("live-2") == std::string::npos);
  CHECK(at("gone-3") < at("gone-2"));
  CHECK(at("live-1") < at("gone-3"));
  CHECK(at("gone-1") == std::string::npos);
  CHECK(text.ends_with("\n(1 more connected pages and 2 more disconnected pages not listed; their logs are under "
                       "debug/)\n"));
  // Within the bounds: no count line.
  CHECK(registry_text({pages[0]}, 2, 2).find("not listed") == std::string::npos);
}

TEST_CASE("a page log's note goes above its footer, or at the end while a job runs, and waits to be committed",
          "[unit][transcript]") {
  LogFolder f;
  CHECK(f.log.path() == "debug/tab-1.md");
  CHECK(f.log.events_path() == "debug/tab-1.events.log");
  REQUIRE(f.log.chat.create({"# tab"}).has_value());
  CHECK(f.log.settled());

  f.log.place_footer(true);  // a job runs: no footer
  CHECK(f.file("debug/tab-1.md") == "# tab\n");
  CHECK(f.about_to_write.empty());
  f.log.place_footer(false);
  f.log.place_footer(false);  // once
  CHECK(f.file("debug/tab-1.md") == "# tab\n\n" + std::string(footer) + "\n");
  f.log.note({"> _reconnected_"});
  CHECK(f.file("debug/tab-1.md") == "# tab\n\n> _reconnected_\n\n" + std::string(footer) + "\n");
  CHECK(f.about_to_write == std::vector<std::string>{"debug/tab-1.md", "debug/tab-1.md"});

  // Both writes wait for the page's next commit, the newest last.
  CHECK(f.log.has_uncommitted());
  CHECK_FALSE(f.log.settled());
  std::vector<FileChange> changes = f.log.take_uncommitted();
  REQUIRE(changes.size() == 2);
  CHECK(changes.back().path == "debug/tab-1.md");
  CHECK(*changes.back().after == f.file("debug/tab-1.md"));
  CHECK(f.log.settled());

  // Without a footer at its end (a job's placeholder is there), a note is appended.
  REQUIRE(f.log.chat.append({"executing (0s)"}).has_value());
  f.log.note({"> _late_"});
  CHECK(f.file("debug/tab-1.md").ends_with("executing (0s)\n\n> _late_\n"));
  f.log.draft = {"> **a** to tab-1"};
  f.log.take_uncommitted();
  CHECK_FALSE(f.log.settled());  // a draft is open
}

TEST_CASE("a page log appends events to its events log and renders results inline, archived or as errors",
          "[unit][transcript]") {
  LogFolder f(16);
  CHECK(f.log.log_events({}).empty());
  const std::vector<FileChange> first = f.log.log_events({{"console.log", "Text", "one", 0}});
  REQUIRE(first.size() == 1);
  CHECK(first[0].path == "debug/tab-1.events.log");
  CHECK_FALSE(first[0].before);  // the file is new
  const std::vector<FileChange> second = f.log.log_events({{"console.warn", "Text", "two", 0}});
  REQUIRE(second.size() == 1);
  CHECK(*second[0].before == *first[0].after);
  CHECK(f.file("debug/tab-1.events.log") == *second[0].after);
  CHECK(second[0].after->find(" console.warn: two\n") != std::string::npos);
  CHECK_FALSE(f.log.has_uncommitted());  // the caller commits them

  std::vector<FileChange> extra;
  CHECK(f.log.render_result(7, json::parse(R"({"ok":true,"value":[1,2]})").as_object(), extra) ==
        fenced("JSON", result_text(json::parse(R"({"value":[1,2]})").as_object())));
  CHECK(extra.empty());
  const json::object big = json::parse(R"({"ok":true,"value":"a string longer than sixteen bytes"})").as_object();
  const Lines archived = f.log.render_result(7, big, extra);
  REQUIRE(extra.size() == 1);
  CHECK(extra[0].path.starts_with("debug-archive/tab-1-job7-"));
  CHECK(f.file(extra[0].path) == result_text(big) + "\n");
  CHECK(archived == archived_value(result_text(big), extra[0].path));
  const json::object failed = json::parse(R"({"ok":false,"error":{"name":"TypeError","message":"x"}})").as_object();
  CHECK(f.log.render_result(8, failed, extra) == error_block(failed));
  CHECK(extra.size() == 1);
}
