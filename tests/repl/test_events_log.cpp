// A page's events log read backwards (repl/events_log.hpp): every event
// once, in order, whatever the page size, the blocks the file is read in
// and the bounds that cut a read short.
#include "repl/events_log.hpp"
#include "repl/format.hpp"
#include "repl/transcript.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

struct LogFile {
  test::TempDir dir;
  std::string text;
  int fd = -1;
  explicit LogFile(std::string t) : text(std::move(t)) {
    test::write_file(dir / "x.events.log", text);
    fd = ::open((dir / "x.events.log").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
  }
  ~LogFile() { ::close(fd); }
};

repl::Event event(std::string source, std::string text) { return {std::move(source), "Text", std::move(text), 0}; }

// Every event of the log, paging back with `limits` from its end, oldest first.
std::vector<repl::LoggedEvent> all(const LogFile& log, const repl::EventsLimits& limits, std::size_t* pages = nullptr) {
  std::vector<repl::LoggedEvent> out;
  std::uint64_t before = log.text.size();
  for (std::size_t n = 1;; ++n) {
    auto r = repl::read_events_back(log.fd, before, limits);
    REQUIRE(r.has_value());
    out.insert(out.begin(), r->events.begin(), r->events.end());
    if (pages) *pages = n;
    if (r->next_before == 0) break;
    REQUIRE(r->next_before < before);  // every read moves back
    before = r->next_before;
  }
  return out;
}

}  // namespace

TEST_CASE("events log: paged back from the end, every event once and in order, across blocks", "[repl][unit]") {
  std::vector<repl::Event> events;
  for (int i = 0; i < 5000; ++i) events.push_back(event("console.log", "event " + std::to_string(i)));
  // Further lines, an empty text, and text that looks like an event line of its own.
  events.push_back(event("console.error", "first\nsecond\n\nfourth"));
  events.push_back(event("window.onerror", ""));
  events.push_back(event("console.log", "x\n12:00:00 console.log: forged"));
  LogFile log(repl::events_log_text(events));
  REQUIRE(log.text.size() > 2 * 64 * 1024);  // blocks of 64 KiB

  repl::EventsLimits limits;
  limits.events = 100;
  auto newest = repl::read_events_back(log.fd, log.text.size(), limits);
  REQUIRE(newest.has_value());
  REQUIRE(newest->events.size() == 100);
  CHECK(newest->cut == repl::EventsCut::none);
  CHECK(newest->events.back().text == "x\n12:00:00 console.log: forged");
  CHECK(newest->events.back().source == "console.log");
  CHECK(newest->events.back().time.size() == 8);
  CHECK(newest->events[98].source == "window.onerror");
  CHECK(newest->events[98].text.empty());
  CHECK(newest->events[97].text == "first\nsecond\n\nfourth");
  CHECK(newest->events[96].text == "event 4999");
  CHECK(newest->events[0].text == "event 4903");
  CHECK(newest->next_before == newest->events[0].offset);
  CHECK(log.text.compare(newest->next_before, 20, repl::events_log_text({events[4903]}).substr(0, 20)) == 0);

  std::size_t pages = 0;
  auto every = all(log, limits, &pages);
  REQUIRE(every.size() == events.size());
  CHECK(pages == 51);
  for (std::size_t i = 0; i < events.size(); ++i) {
    INFO(i);
    CHECK(every[i].text == events[i].text);
    CHECK(every[i].source == events[i].source);
  }
  // A few at a time, the same.
  limits.events = 7;
  CHECK(all(log, limits).size() == events.size());
}

TEST_CASE("events log: a large event is cut to its head, a reply to its bound, a scan to its own", "[repl][unit]") {
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "line " + std::to_string(i) + "\n";  // ~200 KB over many blocks
  // The cut at 2048 bytes would fall inside the "é": it is left out whole.
  const std::string cut = std::string(2047, 'y') + "é" + std::string(1000, 'z');
  std::vector<repl::Event> events{event("console.log", "before"), event("console.log", big),
                                  event("console.log", cut)};
  for (int i = 0; i < 40; ++i) events.push_back(event("console.log", std::string(1000, 'a' + i % 26)));
  LogFile log(repl::events_log_text(events));

  repl::EventsLimits limits;
  limits.events = 1000;
  auto r = repl::read_events_back(log.fd, log.text.size(), limits);
  REQUIRE(r.has_value());
  // 16 KiB of text: 16 of the 1000-byte events fit, the 17th does not.
  CHECK(r->events.size() == 16);
  CHECK(r->cut == repl::EventsCut::reply_bytes);
  CHECK(r->next_before == r->events.front().offset);

  // Paging on reaches the big one: its head, and how long it was.
  auto every = all(log, limits);
  REQUIRE(every.size() == events.size());
  const repl::LoggedEvent& b = every[1];
  CHECK(b.truncated);
  CHECK(b.text_bytes == big.size() - 1);  // the log keeps no final line end
  CHECK(b.text.size() <= limits.text_bytes);
  CHECK(b.text.rfind("line 0\nline 1\nline 2\n", 0) == 0);
  CHECK(every[2].truncated);
  CHECK(every[2].text == std::string(2047, 'y'));
  CHECK(every[2].text_bytes == cut.size());
  CHECK(every[0].text == "before");
  CHECK_FALSE(every[0].truncated);

  // A scan bound smaller than the big event: reads stop inside it, yet
  // every read moves back and the events come out all the same, the big
  // one as the head the last read of it found.
  limits.scan_bytes = 64 * 1024;
  std::size_t pages = 0;
  auto scanned = all(log, limits, &pages);
  CHECK(pages > 4);
  REQUIRE(scanned.size() == events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    INFO(i);
    if (i == 1) CHECK(every[i].text.rfind(scanned[i].text, 0) == 0);
    else CHECK(scanned[i].text == every[i].text);
  }
}

TEST_CASE("events log: lines a person wrote, a cursor inside a line, an empty log", "[repl][unit]") {
  LogFile log("a note\nanother\n12:00:01 console.log: one\n    more\n12:00:02 console.warn: two\n");
  auto every = all(log, {});
  REQUIRE(every.size() == 3);
  CHECK(every[0].source.empty());
  CHECK(every[0].time.empty());
  CHECK(every[0].text == "a note\nanother");
  CHECK(every[1].text == "one\nmore");
  CHECK(every[1].time == "12:00:01");
  CHECK(every[2].source == "console.warn");

  // A cursor inside the last line: the part before it.
  auto part = repl::read_events_back(log.fd, log.text.size() - 3, {});
  REQUIRE(part.has_value());
  REQUIRE(part->events.size() == 3);
  CHECK(part->events.back().text == "t");

  LogFile empty("");
  auto none = repl::read_events_back(empty.fd, 0, {});
  REQUIRE(none.has_value());
  CHECK(none->events.empty());
  CHECK(none->next_before == 0);
}
