// Agents that only read and write files: saves of chat logs seen by the
// gateway's watcher, the chat-log recovery rules, the file agents' status and
// markers, the inbox, and `editgate wait`, all against a real gateway with
// its built-in Node page. The agent is a shell script (tests/agents/).
#include "pages.hpp"
#include "places.hpp"

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include <regex>

using namespace pagetest;

namespace {

const std::string agent_script = std::string(AGENTS) + "/append_and_wait.sh";

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A page's file under the agents' pages/<page>/, "" when missing.
std::string page_file(const test::TempDir& dir, const std::string& page, const std::string& file) {
  const auto p = test::agents_of(dir.path()) / "pages" / page / file;
  return test::fs::exists(p) ? trimmed(test::read_file(p)) : "";
}

// An editor's save: the new text in a file beside, renamed over the log.
void save_as_editor(const test::fs::path& path, const std::string& text) {
  const auto temp = path.parent_path() / ("." + path.filename().string() + ".swp");
  test::write_file(temp, text);
  test::fs::rename(temp, path);
}

// An agent's in-place append (`cat >>`).
void append(const test::fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

test::Proc wait_page_cli(const test::TempDir& dir, const std::string& page, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{EDITGATE_BIN, "wait", "--root", dir.str(), "--page", page, "--timeout", "30"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run(args);
}

bool ends_with_footer(const std::string& text) { return trimmed(text).ends_with(std::string(repl::footer)); }

}  // namespace

TEST_CASE_METHOD(NodeGateway, "a shell agent appends requests with cat and learns the replies from editgate wait or the markers", "[files]") {
  wait_commit(dir.path(), "page " + name);
  CHECK(page_file(dir, name, "status.json").find(R"("state":"ready")") != std::string::npos);
  CHECK(page_file(dir, name, "ready.marker") == "0");

  auto waited = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, "6 * 7"});
  CHECK(waited.exit_code == 0);
  CHECK(waited.out == "42\n");
  const std::string first = page_file(dir, name, "completed.marker");
  CHECK(page_file(dir, name, "ack.marker") == first);

  auto polled = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, "[1, 2].map(x => x * 2)", "poll"});
  CHECK(polled.exit_code == 0);
  CHECK(polled.out.find(R"("status":"ok","result":[2,4])") != std::string::npos);
  const std::string second = page_file(dir, name, "completed.marker");
  CHECK(std::stoull(second) > std::stoull(first));

  auto failed = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, "throw new RangeError('nope')"});
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("RangeError: nope") != std::string::npos);
  const std::string third = page_file(dir, name, "completed.marker");
  const std::string status = page_file(dir, name, "status.json");
  CHECK(status.find(R"("state":"error")") != std::string::npos);
  CHECK(status.find(R"("job":)" + third + ",") != std::string::npos);
  CHECK(page_file(dir, name, "ready.marker") == third);

  // The log reads as a chat, with the header the agent left out written in.
  const std::string text = test::read_file(log);
  CHECK(count(text, "> **agent** to " + name + " at ") == 3);
  CHECK(text.find("```JSON\n42\n```") != std::string::npos);
  CHECK(ends_with_footer(text));
  // The chat history: a request and a reply per job, with their commits.
  const std::string history = page_file(dir, name, "chat_history.jsonl");
  CHECK(count(history, R"({"type":"request")") == 3);
  CHECK(count(history, R"({"type":"reply")") == 3);
  CHECK(history.find(R"("code":["6 * 7\n"])") != std::string::npos);
  CHECK(history.find(R"("commit":null)") == std::string::npos);
  // Git: each save is its request's own change, committed with its reply
  // as the agent's on the REPL's ref.
  const std::string log_lines = wait_commit(dir.path(), "reply: " + name + " to agent, job " + third);
  const std::string authors = repl_log(dir.path(), {"--format=%an: %s%n%b", "-9"});
  CHECK(authors.find("- request: agent to " + name + ", job " + third) != std::string::npos);
  CHECK(authors.find("saved outside editgate") == std::string::npos);
  CHECK(test::git_ok(dir.path(), {"status", "--porcelain"}).empty());
}

TEST_CASE_METHOD(NodeGateway, "an editor's save runs a request like an append, a draft waits for its fence, and the gateway's own writes wake nothing", "[files]") {
  wait_commit(dir.path(), "page " + name);
  // Temp file + rename, the header written by the agent itself.
  save_as_editor(log, test::read_file(log) + "> **claude** to " + name + " at 10:00:00\n```js\n'saved'\n```\n");
  auto w = wait_page_cli(dir, name);
  CHECK(w.exit_code == 0);
  CHECK(w.out == "\"saved\"\n");
  wait_commit(dir.path(), "reply: " + name + " to claude");
  // The very same request again (same header, same second, same code): the
  // gateway places its reply under the newest one.
  append(log, "> **claude** to " + name + " at 10:00:00\n```js\n'saved'\n```\n");
  w = wait_page_cli(dir, name);
  CHECK(w.exit_code == 0);
  CHECK(w.out == "\"saved\"\n");
  CHECK(count(test::read_file(log), "```JSON\n\"saved\"\n```") == 2);
  wait_commit(dir.path(), "reply: " + name + " to claude");

  // Nothing more happens by itself: no commit, no change to the log.
  const std::string head = repl_log(dir.path(), {"-1", "--format=%H"});
  const std::string text = test::read_file(log);
  std::this_thread::sleep_for(800ms);
  CHECK(repl_log(dir.path(), {"-1", "--format=%H"}) == head);
  CHECK(test::read_file(log) == text);

  // A draft (the fence still open) runs nothing; the footer goes below it.
  const std::string ack = page_file(dir, name, "ack.marker");
  append(log, "```js\n40 +\n");
  const std::string drafted = wait_file(log, [](const std::string& t) { return ends_with_footer(t); });
  CHECK(drafted.find("```js\n40 +\n\n" + std::string(repl::footer)) != std::string::npos);
  std::this_thread::sleep_for(400ms);
  CHECK(page_file(dir, name, "ack.marker") == ack);
  CHECK(repl_log(dir.path(), {"-1", "--format=%H"}) == head);
  // Finished where it stands (the line and the fence added in place), it runs.
  std::string finished = test::read_file(log);
  finished.replace(finished.find("40 +\n"), 5, "40 +\n2\n```\n");
  save_as_editor(log, finished);
  w = wait_page_cli(dir, name);
  CHECK(w.exit_code == 0);
  CHECK(w.out == "42\n");
  const std::string after = test::read_file(log);
  CHECK(count(after, std::string(repl::footer)) == 1);
  CHECK(ends_with_footer(after));
}

TEST_CASE_METHOD(NodeGateway, "chat-log recovery: an announcement edited away comes back, an edited request is cancelled", "[files]") {
  wait_commit(dir.path(), "page " + name);
  const std::string slow = "await new Promise(r => setTimeout(r, 1500)); 'slow'";

  SECTION("the executing announcement removed mid-job is put back under its request") {
    append(log, "```js\n" + slow + "\n```\n");
    std::string text = wait_file(log, [](const std::string& t) { return t.find("executing (0s)") != std::string::npos; });
    const std::size_t at = text.rfind("> **" + name + "** to agent at ");
    save_as_editor(log, text.substr(0, at) + "\n");
    auto w = wait_page_cli(dir, name);
    CHECK(w.exit_code == 0);
    CHECK(w.out == "\"slow\"\n");
    text = test::read_file(log);
    CHECK(count(text, "> **" + name + "** to agent at ") == 1);
    CHECK(text.find("```JSON\n\"slow\"\n```") != std::string::npos);
    CHECK(ends_with_footer(text));
  }
  SECTION("a running request edited after it was accepted is cancelled, and the log says so") {
    append(log, "```js\n" + slow + "\n```\n");
    std::string text = wait_file(log, [](const std::string& t) { return t.find("executing (0s)") != std::string::npos; });
    text.replace(text.find("'slow'"), 6, "'changed'");
    save_as_editor(log, text);
    auto w = wait_page_cli(dir, name);
    CHECK(w.exit_code == 1);
    CHECK(w.err.find("request_edited: the request was edited") != std::string::npos);
    text = test::read_file(log);
    CHECK(text.find("(**ERROR** request_edited after") != std::string::npos);
    CHECK(text.find("'changed'") != std::string::npos);
    CHECK(ends_with_footer(text));
    // The page was stopped, and answers the next request.
    w = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, "'next'"});
    CHECK(w.out == "\"next\"\n");
  }
  SECTION("a queued request edited before it ran is cancelled; the running one is not") {
    append(log, "```js\n" + slow + "\n```\n");
    wait_file(log, [](const std::string& t) { return t.find("executing (0s)") != std::string::npos; });
    append(log, "```js\n'queued'\n```\n");
    std::string text = wait_file(log, [&](const std::string& t) {
      return t.find("> **agent** to " + name + " at ", t.find("'slow'")) != std::string::npos;
    });
    text.replace(text.find("'queued'"), 8, "'edited'");
    save_as_editor(log, text);
    auto w = wait_page_cli(dir, name);
    CHECK(w.exit_code == 1);  // the newest job: the cancelled one
    text = test::read_file(log);
    CHECK(text.find("```JSON\n\"slow\"\n```") != std::string::npos);
    CHECK(text.find("request_edited") != std::string::npos);
    CHECK(text.find("```JSON\n\"edited\"") == std::string::npos);
    const std::string history = page_file(dir, name, "chat_history.jsonl");
    CHECK(history.find(R"("status":"request_edited")") != std::string::npos);
  }
}

TEST_CASE("a restarted gateway marks the jobs its predecessor left executing as interrupted, and job numbers go on", "[files]") {
  test::TempDir dir;
  std::string name, rel, before;
  {
    client::Gateway gw{dir.str(), {}, true};
    client::Ws ws{gw.port()};
    ws.login(gw.cookie());
    name = wait_page(ws, "node-").at("page").as_string();
    rel = "debug/" + name + ".md";
    wait_commit(dir.path(), "page " + name);
    append(dir / rel, "```js\nawait new Promise(r => setTimeout(r, 60000))\n```\n");
    wait_file(dir / rel, [](const std::string& t) { return t.find("executing (0s)") != std::string::npos; });
    // The markers are written after the log (off the reply's path): wait for the job's ack.
    wait_file(test::agents_of(dir.path()) / "pages" / name / "ack.marker", [](const std::string& t) { return !trimmed(t).empty(); });
    before = page_file(dir, name, "ack.marker");
    CHECK(gw.stop(SIGKILL) == -1);  // no chance to write anything
  }
  client::Gateway gw{dir.str(), {}, true};
  const std::string text = wait_file(dir / rel, [](const std::string& t) {
    return t.find("interrupted") != std::string::npos && ends_with_footer(t);
  });
  CHECK(text.find("(**ERROR** interrupted)") != std::string::npos);
  CHECK(text.find("interrupted: the gateway stopped while this job ran") != std::string::npos);
  CHECK(text.find("executing (") == std::string::npos);
  CHECK(ends_with_footer(text));
  wait_commit(dir.path(), "page " + name + ": 1 job(s) interrupted by a gateway restart");
  // The page is back on its log; the next job's number is past the old marker's.
  auto w = test::run({"sh", agent_script, EDITGATE_BIN, dir.str(), name, "'again'"});
  INFO(w.err);
  CHECK(w.out == "\"again\"\n");
  CHECK(std::stoull(page_file(dir, name, "completed.marker")) > std::stoull(before));
}

TEST_CASE("the inbox applies a dropped message of edit blocks as apply would, and never answers half a file", "[files]") {
  test::TempDir dir;
  test::git_ok(dir.path(), {"init", "-q"});
  test::write_file(dir / "notes.txt", "alpha\nbeta\n");
  test::git_ok(dir.path(), {"add", "notes.txt"});
  test::git_ok(dir.path(), {"commit", "-qm", "notes"});
  client::Gateway gw{dir.str()};
  const auto inbox = test::agents_of(dir.path()) / "inbox";
  REQUIRE(test::fs::is_directory(inbox));
  const std::string message = "Here is the fix.\n\nnotes.txt\n««« EDIT\nbeta\n═══════ REPL\ngamma\n»»» EDIT END\n";

  // Written slowly, in two pieces: only the closed file is read.
  {
    const int fd = ::open((inbox / "fix.md").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    const std::size_t half = message.size() / 2;
    REQUIRE(::write(fd, message.data(), half) == static_cast<ssize_t>(half));
    std::this_thread::sleep_for(500ms);
    REQUIRE(::write(fd, message.data() + half, message.size() - half) == static_cast<ssize_t>(message.size() - half));
    ::close(fd);
  }
  auto w = test::run({EDITGATE_BIN, "wait", "--root", dir.str(), "--inbox", "fix", "--timeout", "20"});
  CHECK(w.exit_code == 0);
  CHECK(w.out.find("notes.txt:2: applied  block 1, response line 4, -1 +1 lines\n1 applied\ncommitted ") == 0);
  CHECK(test::read_file(dir / "notes.txt") == "alpha\ngamma\n");
  CHECK_FALSE(test::fs::exists(inbox / "fix.md"));
  CHECK(test::read_file(test::agents_of(dir.path()) / "outbox/fix.md") == message);
  const json::object answer = json::parse(test::read_file(test::agents_of(dir.path()) / "outbox/fix.json")).as_object();
  CHECK(answer.at("blocks").as_array().at(0).at("status") == "applied");
  CHECK(answer.at("commit").is_string());
  // The run's outcome as apply's: its JSON, the counts, the text, the verdict.
  CHECK(answer.at("status") == json::array{"done"});
  CHECK(answer.at("summary") == "1 applied");
  CHECK(answer.at("text").as_string().starts_with("notes.txt:2: applied"));
  CHECK(answer.at("file") == "outbox/fix.md");
  CHECK(test::git_ok(dir.path(), {"log", "-1", "--format=%an"}) == "agent\n");

  // The same name again, with a block that fails: the old answer is never
  // taken for the new one, however soon the agent asks.
  test::write_file(inbox / "fix.md", "notes.txt\n««« EDIT\nbeta\n═══════ REPL\ndelta\n»»» EDIT END\n");
  w = test::run({EDITGATE_BIN, "wait", "--root", dir.str(), "--inbox", "fix", "--timeout", "20", "--format", "json"});
  CHECK(w.exit_code == 1);
  const json::object second = json::parse(w.out).as_object();
  CHECK(second.at("blocks").as_array().at(0).at("status") == "failed");
  CHECK(second.at("status") == json::array{"done", "error"});
  CHECK(test::read_file(dir / "notes.txt") == "alpha\ngamma\n");
  // No such message: a usage error, not a wait.
  w = test::run({EDITGATE_BIN, "wait", "--root", dir.str(), "--inbox", "nothing", "--timeout", "2"});
  CHECK(w.exit_code == 2);
  CHECK(w.err.find("no message") != std::string::npos);
}

TEST_CASE_METHOD(NodeGateway, "editgate wait in a terminal: a person runs it under tmux and sees the reply when the agent's request is answered", "[files]") {
  if (test::run({"tmux", "-V"}).exit_code != 0) FAIL("tmux is not installed (scripts/deps.sh installs it)");
  wait_commit(dir.path(), "page " + name);
  const std::string server = "editgate-test-" + std::to_string(::getpid());
  auto tmux = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"tmux", "-L", server});
    return test::run(args);
  };
  // The request first, so the wait has something to wait for.
  append(log, "```js\nawait new Promise(r => setTimeout(r, 700)); ({ answer: 42 })\n```\n");
  REQUIRE(tmux({"new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "sh"}).exit_code == 0);
  struct Kill {
    std::function<void()> f;
    ~Kill() { f(); }
  } kill{[&] { tmux({"kill-server"}); }};
  tmux({"send-keys", "-t", "t", std::string(EDITGATE_BIN) + " wait --root " + dir.str() + " --page node; echo EXIT=$?",
        "Enter"});
  // The typed line holds "EXIT=$?"; the shell's answer starts a line.
  std::string screen;
  for (int i = 0; i < 200 && screen.find("\nEXIT=") == std::string::npos; ++i) {
    std::this_thread::sleep_for(50ms);
    screen = tmux({"capture-pane", "-p", "-t", "t"}).out;
  }
  INFO(screen << test::read_file(log) << gw.err());
  CHECK(screen.find("{\"answer\":42}") != std::string::npos);
  CHECK(screen.find("\nEXIT=0") != std::string::npos);
  // A wait that cannot end: the timeout, exit 124, and why.
  tmux({"send-keys", "-t", "t", "clear; " + std::string(EDITGATE_BIN) + " wait --root " + dir.str() +
                                    " --page node --job 999 --timeout 0.5; echo EXIT=$?", "Enter"});
  screen.clear();
  for (int i = 0; i < 200 && screen.find("\nEXIT=") == std::string::npos; ++i) {
    std::this_thread::sleep_for(50ms);
    screen = tmux({"capture-pane", "-p", "-t", "t"}).out;
  }
  CHECK(screen.find("timed out") != std::string::npos);
  CHECK(screen.find("\nEXIT=124") != std::string::npos);
}
