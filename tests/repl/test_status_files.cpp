// The status files and the commits of the pages' logs (repl/status_files.hpp),
// on their own: a page given by the test, and the harness's ground (a real
// Committer in a temp repository, AgentFiles in its agents' folder).
#include "repl/page_log.hpp"
#include "repl/status_files.hpp"
#include "repl_harness.hpp"

#include <memory>
#include <optional>
#include <string>

namespace json = boost::json;
using repl::StatusFiles;
using repl::StatusPage;

namespace {

struct Setup : repl_harness::Ground {
  repl::JobProgress progress;
  StatusPage page{"tab-1", "debug/tab-1.md", true, 0, std::nullopt, {}, &progress};
  bool known = true;  // the page is there; false: forgotten
  int changed = 0;
  std::optional<StatusFiles> status;

  Setup() {
    status.emplace(
        *committer, io.get_executor(),
        [this](const std::string& id) { return id == "p1" && known ? std::optional<StatusPage>(page) : std::nullopt; },
        [this] { ++changed; });
    status->set_files(&*files);
  }
  ~Setup() { committer->wait_idle(); }

  std::string file(const std::string& name) {
    files->flush();
    return test::read_file(dir / (".git/editgate/pages/tab-1/" + name));
  }
  bool exists(const std::string& name) {
    files->flush();
    return std::filesystem::exists(dir / (".git/editgate/pages/tab-1/" + name));
  }
  json::object status_json() { return json::parse(file("status.json")).as_object(); }
  json::object last_record() {
    const std::string history = file("chat_history.jsonl");
    const std::size_t end = history.rfind('\n', history.size() - 2);
    return json::parse(history.substr(end == std::string::npos ? 0 : end + 1)).as_object();
  }
  repl::Answer ok(int value) { return {{{"value", value}}, std::nullopt}; }
};

}  // namespace

TEST_CASE("status.json and ready.marker say an idle page is ready", "[repl][unit]") {
  Setup s;
  s.status->write(s.page);
  CHECK(s.changed == 1);
  const json::object st = s.status_json();
  CHECK(st.at("state") == "ready");
  CHECK(st.at("page") == "tab-1");
  CHECK(st.at("log") == "debug/tab-1.md");
  CHECK(st.at("connected") == true);
  CHECK(st.at("job") == 0);
  CHECK(st.at("message") == "connected and idle");
  CHECK(s.exists("ready.marker"));
}

TEST_CASE("an accepted job is acked, and status.json follows it from the queue to its reply", "[repl][unit]") {
  Setup s;
  s.status->accepted("tab-1", s.progress, 7, 2);
  s.files->flush();
  CHECK(repl::marker_number((s.dir / ".git/editgate/pages/tab-1/ack.marker").string()) == 7);
  s.page.queued = 1;
  s.page.waits = [](std::uint64_t job) { return job == 7; };
  s.status->write(s.page);
  json::object st = s.status_json();
  CHECK(st.at("state") == "processing");
  CHECK(st.at("phase") == "dispatching");
  CHECK(st.at("job") == 7);
  CHECK(st.at("acked") == 7);
  CHECK_FALSE(s.exists("ready.marker"));

  s.page.queued = 0;
  s.page.waits = {};
  s.page.running = StatusPage::Running{7, 1, 2};
  s.progress.ran(7, 1);
  s.status->write(s.page);
  st = s.status_json();
  CHECK(st.at("phase") == "executing");
  CHECK(st.at("message") == "job 7 runs in the page (block 2 of 2)");
  CHECK(st.at("progress") == 50);

  // Its reply is written and its commit made: completed, the history's record, the markers.
  s.page.running.reset();
  s.progress.ran_all(7);
  s.status->write(s.page);
  CHECK(s.status_json().at("phase") == "writing_output");
  CHECK_FALSE(s.exists("completed.marker"));
  s.status->replied("p1", {7, "ann", 2, s.ok(42), true}, "abc123");
  st = s.status_json();
  CHECK(st.at("state") == "completed");
  CHECK(st.at("job") == 7);
  CHECK(st.at("completed") == 7);
  CHECK(st.at("message") == "job 7 completed");
  CHECK(repl::marker_number((s.dir / ".git/editgate/pages/tab-1/completed.marker").string()) == 7);
  CHECK(repl::marker_number((s.dir / ".git/editgate/pages/tab-1/ready.marker").string()) == 7);
  const json::object rec = s.last_record();
  CHECK(rec.at("type") == "reply");
  CHECK(rec.at("job") == 7);
  CHECK(rec.at("agent") == "ann");
  CHECK(rec.at("block") == 2);
  CHECK(rec.at("status") == "ok");
  CHECK(rec.at("result") == 42);
  CHECK(rec.at("commit") == "abc123");
}

TEST_CASE("a failed reply's record has its error, and a block before the last moves no marker", "[repl][unit]") {
  Setup s;
  s.status->accepted("tab-1", s.progress, 3, 2);
  s.status->replied("p1", {3, "ann", 1, s.ok(1), false}, "");
  CHECK(s.last_record().at("commit").is_null());
  CHECK_FALSE(s.exists("completed.marker"));
  s.progress.ran_all(3);
  s.status->replied("p1", {3, "ann", 2, {{}, repl::Failure{repl::Error::timeout, "no reply"}}, true}, "c");
  const json::object rec = s.last_record();
  CHECK(rec.at("status") == "timeout");
  CHECK(rec.at("error").as_string().find("no reply") != json::string::npos);
  const json::object st = s.status_json();
  CHECK(st.at("state") == "error");
  CHECK(st.at("message") == "job 3 failed: timeout");
}

TEST_CASE("a page forgotten or no files: replies and requests write nothing", "[repl][unit]") {
  Setup s;
  s.known = false;
  s.status->requested("p1", 4, "ann", {"1 + 1"}, "c");
  s.status->replied("p1", {4, "ann", 1, s.ok(2), true}, "c");
  CHECK_FALSE(s.exists("chat_history.jsonl"));
  s.known = true;
  s.status->set_files(nullptr);
  s.status->accepted("tab-1", s.progress, 5, 1);
  CHECK(s.progress.acked() == 0);
  s.status->write(s.page);
  CHECK(s.changed == 1);  // told with no files too
  CHECK_FALSE(s.exists("status.json"));
}

TEST_CASE("a request's record has its blocks and commit", "[repl][unit]") {
  Setup s;
  s.status->requested("p1", 4, "ann", {"1 + 1", "2"}, "def");
  const json::object rec = s.last_record();
  CHECK(rec.at("type") == "request");
  CHECK(rec.at("job") == 4);
  CHECK(rec.at("agent") == "ann");
  CHECK(rec.at("code") == json::array{"1 + 1", "2"});
  CHECK(rec.at("commit") == "def");
}

TEST_CASE("a reply's commit holds the log's changes, by the page, and its callback has the id", "[repl][unit]") {
  Setup s;
  repl::PageLog log(*s.ws, "tab-1", nullptr, {}, 4096);
  auto text = std::make_shared<const std::string>("# tab\n");
  log.keep(repl::FileChange{"debug/tab-1.md", nullptr, text});
  std::optional<std::string> id;
  s.status->commit("tab-1", log, {}, "tab-1", "reply: tab-1 to ann, job 9", {{"Editgate-Kind", "reply"}},
                   [&](const std::string& c) { id = c; }, {{}, {"tab-1/9"}, "42", false});
  CHECK_FALSE(log.has_uncommitted());
  s.committer->wait_idle();
  s.io.poll();
  REQUIRE(id);
  CHECK(id->size() == 40);
  const std::string refs = test::git_ok(s.dir.path(), {"for-each-ref", "--format=%(refname)", "refs/editgate/repl/"});
  REQUIRE(!refs.empty());
  const std::string ref = refs.substr(0, refs.find('\n'));
  CHECK(test::git_ok(s.dir.path(), {"show", ref + ":tab-1.md"}) == "# tab\n");
  const std::string message = test::git_ok(s.dir.path(), {"log", "-1", "--format=%an <%ae>%n%B", ref});
  CHECK(message.find("tab-1 <tab-1@page.editgate.invalid>") == 0);
  CHECK(message.find("Editgate-Page: tab-1") != std::string::npos);
  CHECK(message.find("Editgate-Kind: reply") != std::string::npos);
}

TEST_CASE("a commit with nothing to commit still calls back, with no id", "[repl][unit]") {
  Setup s;
  repl::PageLog log(*s.ws, "tab-1", nullptr, {}, 4096);
  std::optional<std::string> id;
  s.status->commit("tab-1", log, {}, "tab-1", "footer of tab-1", {}, [&](const std::string& c) { id = c; });
  CHECK_FALSE(id);  // posted, not called at once
  s.io.poll();
  CHECK(id == "");
}
