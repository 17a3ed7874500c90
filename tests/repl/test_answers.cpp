// The REPL's answers in-process, with a fake page: a failure reaches its
// caller as a code and a message (repl::Answer), never as text in the body,
// while the chat history keeps the record it always wrote.
#include "repl/agent_files.hpp"
#include "repl/committer.hpp"
#include "repl/repl.hpp"
#include "support.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// A page that keeps what the REPL sends it; the test answers for it.
struct FakePage : repl::PageLink {
  std::vector<json::object> sent;
  void send(std::string message) override { sent.push_back(json::parse(message).as_object()); }
  void close() override {}
};

struct Fixture {
  test::TempDir dir;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(io);
  std::optional<editproto::Workspace> ws;
  std::unique_ptr<repl::Committer> committer;
  std::optional<repl::AgentFiles> files;
  std::optional<repl::Repl> repl;
  std::shared_ptr<FakePage> page = std::make_shared<FakePage>();
  std::string id, stem;

  explicit Fixture(repl::Options options = {}) {
    test::git_ok(dir.path(), {"init", "-q"});
    test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
    ws.emplace(*editproto::Workspace::open(dir.str()));
    committer = std::move(*repl::Committer::start(dir.str()));
    files.emplace((dir / ".git/editgate").string());
    repl.emplace(*ws, *committer, io.get_executor(), options);
    repl->set_files(&*files);
    repl::Hello hello;
    hello.name = "tab";
    hello.url = hello.origin = "http://x";
    hello.kind = "browser";
    auto welcome = repl->connect(hello, page);
    REQUIRE(welcome.has_value());
    id = welcome->id;
    stem = *repl->page_name(id);
  }
  ~Fixture() {
    repl->shutdown();
    io.poll();
    committer->wait_idle();
  }

  // An eval whose final answer lands in `answer`; the job the page was sent.
  void eval(std::string page_name, std::string code, std::optional<repl::Answer>& answer) {
    repl::EvalRequest req;
    req.page = std::move(page_name);
    req.code = std::move(code);
    repl->eval(std::move(req), {{}, [&answer](repl::Answer a) { answer = std::move(a); }});
    io.poll();
  }
  std::uint64_t eval(std::string code, std::optional<repl::Answer>& answer) {
    eval("tab", std::move(code), answer);
    REQUIRE(!page->sent.empty());
    REQUIRE(page->sent.back().at("type") == "eval");
    return page->sent.back().at("job").to_number<std::uint64_t>();
  }
  void from_page(const json::object& message) {
    repl->from_page(id, json::serialize(message));
    io.poll();
  }
  // The chat history's last record, once the reply's commit has come back.
  json::object last_record() {
    committer->wait_idle();
    io.poll();
    files->flush();
    const std::string history = test::read_file(dir / (".git/editgate/pages/" + stem + "/chat_history.jsonl"));
    const std::size_t end = history.rfind('\n', history.size() - 2);
    return json::parse(history.substr(end == std::string::npos ? 0 : end + 1)).as_object();
  }
};

}  // namespace

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
