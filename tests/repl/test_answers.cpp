// The REPL's answers in-process, with a fake page: a failure reaches its
// caller as a code and a message (repl::Answer), never as text in the body,
// while the chat history keeps the record it always wrote.
#include "repl_harness.hpp"

namespace json = boost::json;
using namespace std::chrono_literals;
using repl_harness::Fixture;

TEST_CASE("a page's exception is the answer's page_error, with the exception's own text", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> answer;
  const std::uint64_t job = f.eval("x.y", answer);
  f.from_page({{"type", "result"}, {"job", job}, {"ok", false},
               {"error", {{"name", "TypeError"}, {"message", "x is null"}}}});
  REQUIRE(answer);
  REQUIRE(answer->failure);
  CHECK(answer->failure->code == repl::Error::page_error);
  CHECK(answer->failure->message == "TypeError: x is null");
  // The body carries what the reply says besides: no error text to read back.
  CHECK_FALSE(answer->body.contains("error"));
  CHECK_FALSE(answer->body.contains("reason"));
  CHECK_FALSE(answer->body.contains("status"));
  CHECK(answer->body.at("exception").at("name") == "TypeError");
  CHECK(answer->body.at("job") == job);
  // The chat history says it as before.
  const json::object rec = f.last_record();
  CHECK(rec.at("status") == "page_error");
  CHECK(rec.at("error") == "TypeError: x is null");
  CHECK(rec.at("exception").at("message") == "x is null");
}

TEST_CASE("a value is an answer without a failure", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> answer;
  const std::uint64_t job = f.eval("40 + 2", answer);
  f.from_page({{"type", "result"}, {"job", job}, {"ok", true}, {"value", 42}});
  REQUIRE(answer);
  CHECK_FALSE(answer->failure);
  CHECK(answer->body.at("value") == 42);
  const json::object rec = f.last_record();
  CHECK(rec.at("status") == "ok");
  CHECK(rec.at("result") == 42);
  CHECK_FALSE(rec.contains("error"));
}

TEST_CASE("a timeout is the code timeout, its message without the code", "[repl][unit]") {
  repl::Options options;
  options.timeout = 10ms;
  Fixture f(options);
  std::optional<repl::Answer> answer;
  const std::uint64_t job = f.eval("for (;;) {}", answer);
  // The deadline passes; the page is told to stop and says it stopped.
  while (f.page->sent.back().at("type") != "interrupt") f.io.run_one_for(1s);
  f.from_page({{"type", "interrupted"}, {"job", job}, {"status", "interrupted"}});
  REQUIRE(answer);
  REQUIRE(answer->failure);
  CHECK(answer->failure->code == repl::Error::timeout);
  CHECK(answer->failure->message ==
        "no reply within 10 ms; the page was told to stop and stopped it; no reply will follow");
  CHECK(f.last_record().at("error").as_string() == "timeout: " + answer->failure->message);
}

TEST_CASE("refusals are codes: no such page, an interrupt-id that names no job", "[repl][unit]") {
  Fixture f;
  std::optional<repl::Answer> refused;
  f.eval("nope", "1", refused);
  REQUIRE(refused);
  REQUIRE(refused->failure);
  CHECK(refused->failure->code == repl::Error::not_found);
  CHECK(refused->body.empty());

  std::optional<repl::Answer> running;
  const std::uint64_t job = f.eval("await new Promise(() => {})", running);
  std::optional<repl::Answer> mismatch;
  f.repl->interrupt_job("tab", 0, [&](repl::Answer a) { mismatch = std::move(a); });
  REQUIRE(mismatch);
  REQUIRE(mismatch->failure);
  CHECK(mismatch->failure->code == repl::Error::not_found);
  CHECK(mismatch->failure->message == "no running request has that id; " + f.stem + " runs job " + std::to_string(job));
  CHECK(mismatch->body == json::object{{"result", "interrupt-id-mismatch"}, {"job", job}});
}
