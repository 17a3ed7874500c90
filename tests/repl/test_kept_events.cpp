// Console output within its bound (repl/kept_events.hpp), and the REPL
// passing on only what it keeps: the rest is a count in the reply.
#include "repl/kept_events.hpp"
#include "repl_harness.hpp"

namespace json = boost::json;
using repl::Event;
using repl::KeptEvents;
using repl_harness::contains;
using repl_harness::Fixture;
using repl_harness::Heard;

TEST_CASE("kept events stop at their count or their bytes, and count the rest", "[repl][unit]") {
  KeptEvents kept;
  CHECK(kept.add({"console.log", "Text", "abc", 0}, 3, 5));
  CHECK_FALSE(kept.add({"console.log", "Text", "def", 0}, 3, 5));  // 6 bytes
  CHECK(kept.add({"console.log", "Text", "de", 0}, 3, 5));
  CHECK_FALSE(kept.add({"console.log", "Text", "", 0}, 2, 100));  // 2 events
  kept.count_dropped(5);
  CHECK(kept.list().size() == 2);
  CHECK(kept.dropped() == 7);

  KeptEvents more;
  CHECK(more.add({"console.warn", "Text", "x", 0}, 3, 5));
  more.count_dropped(1);
  kept.join(more);
  CHECK(more.empty());
  CHECK(more.dropped() == 0);
  REQUIRE(kept.list().size() == 3);
  CHECK(kept.list().back().source == "console.warn");
  CHECK(kept.dropped() == 8);
  kept.clear();
  CHECK(kept.empty());
  CHECK(kept.dropped() == 0);
}

TEST_CASE("a job's output past the bound is neither passed on nor kept, only counted", "[repl][unit]") {
  repl::Options options;
  options.max_events_kept = 2;
  Fixture f(options);
  Heard heard;
  repl::EvalRequest req;
  req.page = "tab";
  req.code = "for (let i = 0; i < 3; ++i) console.log(i)";
  f.eval(std::move(req), heard);
  const std::uint64_t job = f.page->sent.back().at("job").to_number<std::uint64_t>();
  for (const char* text : {"zero", "one", "two"})
    f.from_page({{"type", "event"}, {"job", job}, {"source", "console.log"}, {"text", text}});
  f.from_page({{"type", "result"}, {"job", job}, {"ok", true}, {"value", nullptr}});
  CHECK(heard.out.size() == 2);
  REQUIRE(heard.answer);
  CHECK(heard.answer->body.at("events_dropped") == 1);
  CHECK(heard.answer->body.at("output") == "zero\none\n");
  CHECK(heard.answer->body.at("output_truncated") == true);
  const std::string log = f.log();
  CHECK(contains(log, "one\n"));
  CHECK_FALSE(contains(log, "two\n"));
}

TEST_CASE("output between jobs is written on its own a second later, and committed", "[repl][unit]") {
  Fixture f;
  f.from_page({{"type", "event"}, {"source", "console.warn"}, {"text", "tick"}});
  CHECK_FALSE(contains(f.log(), "tick"));
  for (int i = 0; i < 30 && !contains(f.log(), "tick"); ++i) f.io.run_one_for(std::chrono::milliseconds(100));
  const std::string log = f.log();
  CHECK(contains(log, "> **" + f.stem + "** background at "));
  CHECK(contains(log, "tick\n"));
  CHECK(log.rfind(repl::footer) > log.find("tick\n"));
  CHECK(f.committed_log() == log);
  CHECK(contains(test::read_file(f.dir / ("debug/" + f.stem + ".events.log")), "console.warn: tick"));
}
