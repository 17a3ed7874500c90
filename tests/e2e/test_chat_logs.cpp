// What a chat log and the files beside it say is what happened: the blank
// line after a reply, one footer, one duration per exchange, a registry
// that shows timeouts and late replies and stays short, status.json that
// follows a job block by block, timeout replies that promise nothing that
// cannot come, and logs the gateway writes that its own lint passes.
#include "pages.hpp"
#include "places.hpp"
#include "repl/lint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <regex>

using namespace pagetest;

namespace {

// An agent's in-place append (`cat >>`).
void append(const test::fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

std::string page_file(const test::TempDir& dir, const std::string& page, const std::string& file) {
  const auto p = test::agents_of(dir.path()) / "pages" / page / file;
  return test::fs::exists(p) ? test::read_file(p) : "";
}

// status.json once `pred` holds for it.
json::object wait_status(const test::TempDir& dir, const std::string& page,
                         const std::function<bool(const json::object&)>& pred) {
  json::object last;
  for (int i = 0; i < 400; ++i) {
    const std::string text = page_file(dir, page, "status.json");
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (!ec && v.is_object()) {
      last = v.as_object();
      if (pred(last)) return last;
    }
    std::this_thread::sleep_for(10ms);
  }
  FAIL("status.json never got there; last: " << json::serialize(last));
  return last;
}

bool phase_is(const json::object& st, const char* phase, std::int64_t progress) {
  return st.at("phase") == phase && st.at("progress").to_number<std::int64_t>() == progress;
}

// The line after each reply block: every reply header's fenced blocks
// (result and background), then what follows them.
std::vector<std::string> after_replies(const std::string& text, const std::string& page) {
  const repl::Lines lines = repl::split_lines(text);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("> **" + page + "** to ", 0) != 0 || lines[i].back() != ')') continue;
    std::size_t j = i + 1;
    while (j < lines.size() && lines[j].rfind("```", 0) == 0) {
      const std::string fence = lines[j].substr(0, lines[j].find_first_not_of('`'));
      ++j;
      while (j < lines.size() && lines[j] != fence) ++j;
      ++j;
    }
    out.push_back(j < lines.size() ? lines[j] : "<end>");
    out.push_back(j + 1 < lines.size() ? lines[j + 1] : "<end>");
  }
  return out;
}

}  // namespace

TEST_CASE_METHOD(NodeGateway, "a finished reply has one blank line under it, also before commentary and a queued request", "[chatlog]") {
  wait_commit(dir.path(), "page " + name);
  // Two blocks with commentary between them, and a second request right
  // under the first, none of it with a blank line of its own.
  append(log, "```js\n'one'\n```\nThen some commentary.\n```js\n'two'\n```\n> **agent** to " + name +
                  " at 10:00:00\n```js\n'three'\n```\n");
  const std::string text = wait_file(log, [&](const std::string& t) {
    return t.find("```JSON\n\"three\"\n```") != std::string::npos && t.ends_with(std::string(repl::footer) + "\n");
  });
  INFO(text);
  const std::vector<std::string> after = after_replies(text, name);
  REQUIRE(after.size() == 6);
  // Each reply: one blank line, then the next thing (not a second blank).
  CHECK(after == std::vector<std::string>{"", "Then some commentary.", "", "> **agent** to " + name + " at 10:00:00",
                                          "", std::string(repl::footer)});
}

TEST_CASE_METHOD(NodeGateway, "text appended below the footer leaves one footer, and a reply someone else wrote gets a note", "[chatlog]") {
  wait_commit(dir.path(), "page " + name);
  // A reply-looking text with a copy of the footer, as an agent imitating
  // the log might write it.
  append(log, "> **" + name + "** to agent at 10:00:00 (3ms)\n```JSON\n1\n```\n\n" + std::string(repl::footer) + "\n");
  std::string text = wait_file(log, [&](const std::string& t) { return t.find("is kept as text, and answers no request") != std::string::npos; });
  INFO(text);
  CHECK(count(text, std::string(repl::footer)) == 1);
  CHECK(text.ends_with(std::string(repl::footer) + "\n"));
  // Plain commentary: the footer moves below it, and an eval after it
  // still leaves one footer.
  append(log, "Just a thought.\n");
  text = wait_file(log, [&](const std::string& t) {
    return t.ends_with("Just a thought.\n\n" + std::string(repl::footer) + "\n");
  });
  CHECK(count(text, "Just a thought.") == 1);
  // A request header over code a page does not run: nothing ran, and the log says so.
  append(log, "> **agent** to " + name + " at 10:00:01\n```python\nprint(1)\n```\n");
  text = wait_file(log, [&](const std::string& t) { return t.find("with no closed js block under it, so nothing ran") != std::string::npos; });
  CHECK(text.ends_with("nothing ran; put the code in a fenced js block below_\n\n" + std::string(repl::footer) + "\n"));
  CHECK(eval(ws, "node", "1 + 1").back().at("value") == 2);
  text = test::read_file(log);
  CHECK(count(text, std::string(repl::footer)) == 1);
  CHECK(text.ends_with(std::string(repl::footer) + "\n"));
  const repl::LintReport lint = repl::lint_log(rel, text, std::nullopt);
  for (const repl::LintProblem& p : lint.problems) CHECK(p.code != repl::LintCode::duplicate_footer);
}

TEST_CASE_METHOD(NodeGateway, "one duration per exchange: log header, commit, trailer, chat history and eval reply agree", "[chatlog]") {
  wait_commit(dir.path(), "page " + name);
  auto msgs = eval(ws, "node", "await new Promise(r => setTimeout(r, 20)); 5");
  const json::value& d = msgs.back().at("duration_ms");
  // An integer number of milliseconds, never 7.703952600000048E1.
  REQUIRE((d.is_int64() || d.is_uint64()));
  const std::string ms = std::to_string(d.to_number<long long>());
  const std::string job = std::to_string(msgs.back().at("job").to_number<long long>());
  CHECK(test::read_file(log).find("** to agent at ") != std::string::npos);
  std::smatch m;
  const std::string text = test::read_file(log);
  REQUIRE(std::regex_search(text, m, std::regex("\\*\\* to agent at \\d\\d:\\d\\d:\\d\\d \\((\\d+)ms\\)\n```JSON\n5\n")));
  CHECK(m[1] == ms);
  wait_commit(dir.path(), "reply: " + name);
  CHECK(repl_log(dir.path(), {"-1", "--format=%b"}).find("- reply: " + name + " to agent, job " + job + " (" + ms +
                                                       "ms) → 5\n") != std::string::npos);
  CHECK(repl_log(dir.path(), {"-1", "--format=%(trailers:key=Editgate-Duration,valueonly)"}) == ms + "ms\n\n");
  std::string history;
  for (int i = 0; i < 200 && history.find(R"("type":"reply","job":)" + job) == std::string::npos; ++i) {
    std::this_thread::sleep_for(10ms);
    history = page_file(dir, name, "chat_history.jsonl");
  }
  const std::size_t at = history.find(R"("type":"reply","job":)" + job);
  REQUIRE(at != std::string::npos);
  const std::string record = history.substr(at, history.find('\n', at) - at);
  CHECK(record.find("\"duration_ms\":" + ms + ",") != std::string::npos);
}

TEST_CASE_METHOD(NodeGateway, "a timed-out job whose await the page abandoned says so, and promises no late reply", "[chatlog]") {
  wait_commit(dir.path(), "page " + name);
  auto msgs = eval(ws, "node", "await new Promise(() => {})", R"(,"timeout":300)");
  CHECK(msgs.back().at("reason") == "timeout");
  const json::value& d = msgs.back().at("duration_ms");
  REQUIRE((d.is_int64() || d.is_uint64()));
  const std::string text = test::read_file(log);
  INFO(text);
  CHECK(text.find("(**ERROR** timeout after " + std::to_string(d.to_number<long long>()) + "ms)") != std::string::npos);
  CHECK(text.find("abandoned") != std::string::npos);
  CHECK(text.find("no reply will follow") != std::string::npos);
  CHECK(text.find("late reply") == std::string::npos);
  // The page goes on with the next job.
  CHECK(eval(ws, "node", "'next'").back().at("value") == "next");
}

TEST_CASE("the registry shows a timeout with its duration and a late reply, and how a silent page's job ended", "[chatlog]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {"--timeout", "300"});
  FakePage page(gw.port());
  page.welcome();
  const test::fs::path log = dir / page.log;
  client::Ws agent(gw.port());
  agent.login(gw.cookie());

  // The page abandons the await when told to.
  agent.send(R"({"op":"eval","id":"a","page":")" + page.name + R"x(","code":"slow()"})x");
  json::object job = page.next();
  REQUIRE(job.at("type") == "eval");
  REQUIRE(page.next().at("type") == "interrupt");
  page.send({{"type", "result"}, {"job", job.at("job")}, {"ok", false},
             {"error", {{"name", "Interrupted"}, {"message", "abandoned the await; async work the code started may still run"}, {"stack", ""}}}});
  page.send({{"type", "interrupted"}, {"job", job.at("job")}, {"status", "interrupted"}, {"message", ""}});
  json::object done = obj(agent.until_done().back());
  CHECK(done.at("reason") == "timeout");
  const std::string ms = std::to_string(done.at("duration_ms").to_number<long long>());
  const std::string first = std::to_string(job.at("job").to_number<long long>());
  std::string registry = wait_file(dir / "debug.md", [&](const std::string& t) {
    return t.find("job " + first + " failed after " + ms + "ms (timeout)") != std::string::npos;
  });
  std::string text = test::read_file(log);
  CHECK(text.find("late reply") == std::string::npos);

  // A page that does not answer: the log says a late reply may come, and
  // when it comes the registry says so.
  agent.send(R"({"op":"eval","id":"b","page":")" + page.name + R"x(","code":"busy()"})x");
  job = page.next();
  REQUIRE(job.at("type") == "eval");
  done = obj(agent.until_done().back());
  CHECK(done.at("reason") == "timeout");
  text = test::read_file(log);
  CHECK(text.find("did not answer") != std::string::npos);
  CHECK(text.find("written below as a late reply") != std::string::npos);
  REQUIRE(page.next().at("type") == "interrupt");
  page.send({{"type", "result"}, {"job", job.at("job")}, {"ok", true}, {"value", "finally"}});
  const std::string second = std::to_string(job.at("job").to_number<long long>());
  registry = wait_file(dir / "debug.md", [&](const std::string& t) {
    return t.find("job " + second + " failed after ") != std::string::npos &&
           t.find("(timeout), late reply after ") != std::string::npos;
  });
  CHECK(test::read_file(log).find("\"finally\"") != std::string::npos);
}

TEST_CASE("the registry lists the live pages and only the most recently gone (serve --registry-disconnected)", "[chatlog]") {
  test::TempDir dir;
  client::Gateway gw(dir.str(), {"--registry-disconnected", "2"});
  std::vector<std::string> names;
  for (int i = 0; i < 4; ++i) {
    FakePage page(gw.port());
    page.welcome();
    names.push_back(page.name);
    page.ws.close();
    wait_file(dir / "debug.md", [&](const std::string& t) {
      const std::size_t at = t.find("* " + page.name + " ");
      return at != std::string::npos && t.substr(at, t.find('\n', at) - at).find("state: disconnected") != std::string::npos;
    });
  }
  FakePage live(gw.port());
  live.welcome();
  const std::string registry = wait_file(dir / "debug.md", [&](const std::string& t) {
    return t.find("* " + live.name + " ") != std::string::npos;
  });
  INFO(registry);
  CHECK(count(registry, "\n* ") == 3);  // the live page and the last two gone
  CHECK(registry.find("* " + names[3] + " ") != std::string::npos);
  CHECK(registry.find("* " + names[2] + " ") != std::string::npos);
  CHECK(registry.find(names[0]) == std::string::npos);
  CHECK(registry.find(names[1]) == std::string::npos);
  CHECK(registry.find("2 more disconnected pages") != std::string::npos);
}

TEST_CASE("status.json follows a job: dispatching while the page is away, progress by blocks, then writing_output", "[chatlog]") {
  test::TempDir dir;
  client::Gateway gw(dir.str());
  FakePage page(gw.port());
  page.welcome();
  const test::fs::path log = dir / page.log;
  wait_commit(dir.path(), "page " + page.name);
  page.ws.close();
  wait_status(dir, page.name, [](const json::object& st) { return st.at("connected") == false; });

  // Three blocks appended while the page is away: accepted, waiting for it.
  append(log, "```js\n1\n```\n```js\n2\n```\n```js\n3\n```\n");
  json::object st = wait_status(dir, page.name, [](const json::object& s) { return s.at("phase") == "dispatching"; });
  CHECK(st.at("state") == "processing");
  CHECK(st.at("progress") == 0);
  const auto job = st.at("job");

  FakePage again(gw.port(), page.id, page.secret);
  again.welcome();
  for (int block = 0; block < 3; ++block) {
    json::object eval_msg = again.next();
    REQUIRE(eval_msg.at("type") == "eval");
    CHECK(eval_msg.at("job") == job);
    wait_status(dir, page.name, [&](const json::object& s) { return phase_is(s, "executing", block * 100 / 3); });
    if (block == 2) {
      // The replies so far committed, then git busy: the last reply waits for its commit.
      for (int i = 0; i < 400 && !test::git_ok(dir.path(), {"status", "--porcelain"}).empty(); ++i)
        std::this_thread::sleep_for(10ms);
      test::write_file(dir / ".git/index.lock", "");
    }
    again.send({{"type", "result"}, {"job", job}, {"ok", true}, {"value", block + 1}});
  }
  st = wait_status(dir, page.name, [](const json::object& s) { return phase_is(s, "writing_output", 100); });
  CHECK(st.at("state") == "processing");
  test::fs::remove(dir / ".git/index.lock");
  st = wait_status(dir, page.name, [](const json::object& s) { return s.at("state") == "completed"; });
  CHECK(st.at("progress") == 100);
  CHECK(st.at("job") == job);
}

TEST_CASE_METHOD(NodeGateway, "a request header naming the page otherwise is run, written with the page's name, and lints clean", "[chatlog]") {
  wait_commit(dir.path(), "page " + name);
  append(log, "> **shell** to page at 10:00:00\n```js\n6 * 7\n```\n");
  const std::string text = wait_file(log, [](const std::string& t) { return t.find("```JSON\n42\n```") != std::string::npos; });
  INFO(text);
  CHECK(text.find("> **shell** to " + name + " at 10:00:00\n```js\n6 * 7\n```") != std::string::npos);
  CHECK(text.find("to page at") == std::string::npos);
  wait_commit(dir.path(), "reply: " + name);
  const test::Proc lint = test::run({EDITGATE_BIN, "lint", log.string()});
  CHECK(lint.out == "1 file, 1 request, 1 reply, 0 problems\n");
  CHECK(lint.exit_code == 0);
}
