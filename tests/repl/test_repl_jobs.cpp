// The REPL's jobs in-process, with a fake page (repl_harness.hpp): what an
// eval writes and commits, its timeout, interrupts of a queued and of a
// running job, a page that goes away mid-job, the queue's bound, and input
// to a prompt the code waits on.
#include "repl/format.hpp"
#include "repl_harness.hpp"

namespace json = boost::json;
using namespace std::chrono_literals;
using repl_harness::contains;
using repl_harness::FakePage;
using repl_harness::Fixture;
using repl_harness::Heard;

namespace {

repl::EvalRequest request(std::string code, std::chrono::milliseconds timeout = 0ms, std::uint64_t job = 0) {
  repl::EvalRequest req;
  req.page = "tab";
  req.code = std::move(code);
  req.timeout = timeout;
  req.job = job;
  return req;
}

const json::object* record_of(const std::vector<json::object>& records, std::string_view type, std::uint64_t job) {
  for (const json::object& r : records)
    if (r.at("type").as_string() == type && r.at("job") == job) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("an eval's request and reply are written into the page's log and committed", "[repl][unit]") {
  Fixture f;
  Heard heard;
  f.eval(request("40 + 2"), heard);
  REQUIRE(f.page->of_type("eval").size() == 1);
  const json::object sent = f.page->sent.back();
  const std::uint64_t job = sent.at("job").to_number<std::uint64_t>();
  CHECK(sent.at("code") == "40 + 2");
  CHECK(sent.at("timeout_ms") == 60000);
  // While it runs: the request, and under it the announcement with a placeholder.
  const std::string running = f.log();
  CHECK(contains(running, "> **agent** to " + f.stem + " at "));
  CHECK(contains(running, "```JS\n40 + 2\n```\n"));
  CHECK(contains(running, "> **" + f.stem + "** to agent at "));
  CHECK(contains(running, "executing (0s)"));
  CHECK_FALSE(contains(running, repl::footer));
  CHECK_FALSE(heard.answer);

  f.from_page({{"type", "event"}, {"job", job}, {"source", "console.log"}, {"text", "hi"}});
  REQUIRE(heard.out.size() == 1);
  CHECK(heard.out[0] == json::object{{"out", "hi\n"}, {"source", "console.log"}, {"page", f.stem}});
  f.from_page({{"type", "result"}, {"job", job}, {"ok", true}, {"value", 42}});
  REQUIRE(heard.answer);
  CHECK_FALSE(heard.answer->failure);
  CHECK(heard.answer->body.at("value") == 42);
  CHECK(heard.answer->body.at("page").as_string() == f.stem);
  CHECK(heard.answer->body.at("log").as_string() == f.log_path());
  CHECK(heard.answer->body.at("output") == "hi\n");

  // The reply took the placeholder's place, the output above its value, and
  // the footer is back under it.
  const std::string done = f.log();
  CHECK_FALSE(contains(done, "executing ("));
  CHECK(contains(done, "hi\n"));
  CHECK(contains(done, "42\n"));
  CHECK(contains(done, std::string(repl::footer) + "\n"));
  CHECK(done.rfind(repl::footer) > done.find("42\n"));
  // Both are committed, on the REPL's ref, naming the job.
  CHECK(f.committed_log() == done);
  const std::string messages = f.commit_messages();
  CHECK(contains(messages, "Editgate-Job: " + std::to_string(job)));
  CHECK(contains(messages, "Editgate-Status: ok"));
  const auto records = f.records();
  REQUIRE(record_of(records, "request", job));
  REQUIRE(record_of(records, "reply", job));
  CHECK(record_of(records, "reply", job)->at("result") == 42);
}

TEST_CASE("a timed-out job holds the queue until the page answers being told to stop", "[repl][unit]") {
  Fixture f;
  Heard first, second;
  f.eval(request("for (;;) {}", 10ms), first);
  const std::uint64_t job = f.page->sent.back().at("job").to_number<std::uint64_t>();
  f.eval(request("2"), second);
  CHECK(f.page->of_type("eval").size() == 1);

  f.until_sent("interrupt");
  CHECK(f.page->sent.back().at("job") == job);
  // What became of it is the page's word, and the next job waits for it.
  CHECK_FALSE(first.answer);
  CHECK(f.page->of_type("eval").size() == 1);

  f.from_page({{"type", "interrupted"}, {"job", job}, {"status", "interrupted"}});
  REQUIRE(first.answer);
  REQUIRE(first.answer->failure);
  CHECK(first.answer->failure->code == repl::Error::timeout);
  CHECK(contains(f.log(), "(**ERROR** timeout after "));
  REQUIRE(f.page->of_type("eval").size() == 2);
  CHECK(f.page->sent.back().at("code") == "2");
  CHECK_FALSE(second.answer);
}

TEST_CASE("an interrupt takes a queued job out of its queue, and the running job runs on", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> running;
  const std::uint64_t first = f.eval("await new Promise(() => {})", running);
  const std::uint64_t queued = f.repl->next_sequence();
  Heard heard;
  f.eval(request("2", 0ms, queued), heard);
  CHECK(f.page->of_type("eval").size() == 1);

  std::optional<repl::Answer> told;
  f.repl->interrupt_job("tab", queued, [&](repl::Answer a) { told = std::move(a); });
  f.io.poll();
  REQUIRE(told);
  CHECK_FALSE(told->failure);
  CHECK(told->body.at("result") == "interrupted");
  CHECK(told->body.at("message").as_string() == "the request waited in " + f.stem + "'s queue; it never started");
  REQUIRE(heard.answer);
  REQUIRE(heard.answer->failure);
  CHECK(heard.answer->failure->code == repl::Error::interrupted);
  CHECK(heard.answer->failure->message == "interrupted while it waited in the queue; it never started");
  // The running job was not told anything, and nothing runs after it.
  CHECK(f.page->of_type("interrupt").empty());
  CHECK_FALSE(running);
  f.from_page({{"type", "result"}, {"job", first}, {"ok", true}, {"value", 1}});
  REQUIRE(running);
  CHECK(f.page->of_type("eval").size() == 1);

  const auto records = f.records();
  REQUIRE(record_of(records, "reply", queued));
  CHECK(record_of(records, "reply", queued)->at("status") == "interrupted");
}

TEST_CASE("an interrupt of a running job is sent to its page, whose answers end it", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> answer;
  const std::uint64_t job = f.eval("await new Promise(() => {})", answer);
  std::optional<repl::Answer> told;
  f.repl->interrupt("tab", [&](repl::Answer a) { told = std::move(a); });
  f.io.poll();
  CHECK(f.page->sent.back() == json::object{{"type", "interrupt"}, {"job", job}});
  CHECK_FALSE(told);
  CHECK_FALSE(answer);

  // The page abandons the await: the job's result, then the interrupt's answer.
  f.from_page({{"type", "result"}, {"job", job}, {"ok", false},
               {"error", {{"name", "Interrupted"}, {"message", "abandoned the await"}}}});
  REQUIRE(answer);
  REQUIRE(answer->failure);
  CHECK(answer->failure->code == repl::Error::page_error);
  CHECK(answer->failure->message == "Interrupted: abandoned the await");
  CHECK(answer->body.at("interrupted") == true);
  CHECK(contains(f.log(), "(**ERROR** after "));
  CHECK_FALSE(told);
  f.from_page({{"type", "interrupted"}, {"job", job}, {"status", "interrupted"}, {"message", "abandoned the await"}});
  REQUIRE(told);
  CHECK_FALSE(told->failure);
  CHECK(told->body == json::object{{"result", "interrupted"}, {"message", "abandoned the await"}});

  // With nothing running, an interrupt says so and sends nothing.
  const std::size_t sent = f.page->sent.size();
  std::optional<repl::Answer> idle;
  f.repl->interrupt("tab", [&](repl::Answer a) { idle = std::move(a); });
  REQUIRE(idle);
  CHECK(idle->body.at("result") == "idle");
  CHECK(f.page->sent.size() == sent);
}

TEST_CASE("a tab silent after an interrupt is not interruptible, and its job runs on", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> answer;
  f.eval("for (;;) {}", answer);
  std::optional<repl::Answer> told;
  f.repl->interrupt("tab", [&](repl::Answer a) { told = std::move(a); });
  for (int i = 0; i < 50 && !told; ++i) f.io.run_one_for(100ms);
  REQUIRE(told);
  CHECK_FALSE(told->failure);
  CHECK(told->body.at("result") == "not-interruptible");
  CHECK_FALSE(answer);
}

TEST_CASE("a page that goes away fails its running job context_destroyed, and its queue waits for it", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> running;
  f.eval("await new Promise(() => {})", running);
  Heard queued;
  f.eval(request("2"), queued);
  std::optional<repl::Answer> completion;
  f.repl->complete("tab", "doc", [&](repl::Answer a) { completion = std::move(a); });
  f.io.poll();

  // A link the page no longer has says nothing.
  FakePage stranger;
  f.repl->disconnect(f.id, &stranger);
  f.io.poll();
  CHECK_FALSE(running);

  f.repl->disconnect(f.id, f.page.get());
  f.io.poll();
  REQUIRE(running);
  REQUIRE(running->failure);
  CHECK(running->failure->code == repl::Error::context_destroyed);
  CHECK(running->failure->message == "the page went away (a reload, a navigation or a closed tab) while the job ran");
  REQUIRE(completion);
  REQUIRE(completion->failure);
  CHECK(completion->failure->code == repl::Error::context_destroyed);
  CHECK(contains(f.log(), "(**ERROR** context_destroyed after "));
  CHECK_FALSE(queued.answer);
  REQUIRE(f.repl->pages().size() == 1);
  CHECK(f.repl->pages()[0].at("state") == "disconnected");
  CHECK(f.repl->pages()[0].at("queued") == 1);

  // It comes back with its secret, to the same log, and gets the queued job.
  auto again = std::make_shared<FakePage>();
  auto welcome = f.repl->connect(f.hello(true), again);
  f.io.poll();
  REQUIRE(welcome.has_value());
  CHECK(welcome->id == f.id);
  CHECK(welcome->secret.empty());
  REQUIRE_FALSE(again->sent.empty());
  CHECK(again->sent.front().at("type") == "welcome");
  CHECK(again->sent.front().at("name").as_string() == f.stem);
  REQUIRE(again->of_type("eval").size() == 1);
  CHECK(again->of_type("eval")[0].at("code") == "2");
  CHECK(contains(f.log(), f.stem + " reconnected at "));
  f.page = again;
}

TEST_CASE("a page that comes back is committed as 'page X reconnected', not as a footer", "[repl][unit]") {
  Fixture f;
  f.repl->disconnect(f.id, f.page.get());
  f.io.poll();
  auto again = std::make_shared<FakePage>();
  REQUIRE(f.repl->connect(f.hello(true), again).has_value());
  f.io.poll();
  f.page = again;
  CHECK(contains(f.log(), f.stem + " reconnected at "));
  const std::string messages = f.commit_messages();  // newest first
  INFO(messages);
  // Its own commit's subject, or its line in a commit it shares when the
  // machine is slow enough for the committer to group it with another item.
  CHECK(contains(messages, "page " + f.stem + " reconnected (http://x)"));
  CHECK_FALSE(contains(messages, "footer of"));
}

TEST_CASE("past max_queued jobs waiting, a page's queue refuses more with queue_full", "[repl][unit]") {
  repl::Options options;
  options.max_queued = 2;
  Fixture f(options);
  std::optional<repl::Answer> running;
  f.eval("await new Promise(() => {})", running);
  Heard second, third, fourth;
  f.eval(request("2"), second);
  f.eval(request("3"), third);
  f.eval(request("4"), fourth);
  CHECK_FALSE(second.answer);
  CHECK_FALSE(third.answer);
  REQUIRE(fourth.answer);
  REQUIRE(fourth.answer->failure);
  CHECK(fourth.answer->failure->code == repl::Error::queue_full);
  CHECK(fourth.answer->failure->message == "2 jobs wait for " + f.stem);
  CHECK(fourth.answer->body.empty());
  CHECK(f.page->of_type("eval").size() == 1);
  CHECK(f.repl->pages()[0].at("queued") == 2);
}

TEST_CASE("input goes to the prompt a running job waits on, once", "[repl][unit]") {
  Fixture f;
  Heard heard;
  f.eval(request("await prompt('name?')"), heard);
  const std::uint64_t job = f.page->sent.back().at("job").to_number<std::uint64_t>();
  auto early = f.repl->input("tab", repl::Input{"too soon"});
  REQUIRE_FALSE(early.has_value());
  CHECK(early.error().code == repl::Error::not_found);
  CHECK(early.error().message == f.stem + " is not waiting for input");

  f.from_page({{"type", "need-input"}, {"job", job}, {"prompt", "name?"}});
  REQUIRE(heard.out.size() == 1);
  CHECK(heard.out[0] == json::object{{"status", json::array{"need-input"}}, {"prompt", "name?"}, {"page", f.stem}});
  REQUIRE(f.repl->input("tab", repl::Input{"bob"}).has_value());
  CHECK(f.page->sent.back() == json::object{{"type", "stdin"}, {"job", job}, {"text", "bob"}});
  CHECK_FALSE(f.repl->input("tab", repl::Input{"again"}).has_value());

  // By job number, wherever it runs; the end of input resolves the prompt to null.
  f.from_page({{"type", "need-input"}, {"job", job}, {"prompt", ""}});
  CHECK(f.repl->input(job + 1, repl::Input{"x"}).error().code == repl::Error::not_found);
  REQUIRE(f.repl->input(job, repl::Input{"", true}).has_value());
  CHECK(f.page->sent.back() == json::object{{"type", "stdin"}, {"job", job}, {"eof", true}});
  // A prompt of another job than the running one is not passed on.
  f.from_page({{"type", "need-input"}, {"job", job + 7}, {"prompt", "?"}});
  CHECK(heard.out.size() == 2);
  CHECK_FALSE(f.repl->input("tab", repl::Input{"x"}).has_value());
}
