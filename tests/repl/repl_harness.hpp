// The REPL in-process: a real workspace (a temp git repository), its
// Committer and AgentFiles, one io_context run by the test, and a fake page
// link that keeps what the REPL sends and lets the test answer as a page
// would (repl/js/protocol.js). Nothing runs unless the test polls the
// io_context, so each step's effects are the test's to look at.
#pragma once

#include "repl/agent_files.hpp"
#include "repl/committer.hpp"
#include "repl/repl.hpp"
#include "support.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace repl_harness {

namespace json = boost::json;

// A page that keeps what the REPL sends it; the test answers for it.
struct FakePage : repl::PageLink {
  std::vector<json::object> sent;
  bool closed = false;
  void send(std::string message) override { sent.push_back(json::parse(message).as_object()); }
  void close() override { closed = true; }
  // The messages of one type, in the order sent.
  std::vector<json::object> of_type(std::string_view type) const {
    std::vector<json::object> out;
    for (const json::object& m : sent)
      if (m.at("type").as_string() == type) out.push_back(m);
    return out;
  }
};

// What an agent hears of one eval: its `out` messages and its final answer.
struct Heard {
  std::vector<json::object> out;
  std::optional<repl::Answer> answer;
};

// A temp git workspace with the REPL's Committer and AgentFiles, and the
// io_context the test polls.
struct Ground {
  test::TempDir dir;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(io);
  std::optional<editproto::Workspace> ws;
  std::unique_ptr<repl::Committer> committer;
  std::optional<repl::AgentFiles> files;

  Ground() {
    test::git_ok(dir.path(), {"init", "-q"});
    test::git_ok(dir.path(), {"commit", "-q", "--allow-empty", "-m", "code"});
    ws.emplace(*editproto::Workspace::open(dir.str()));
    committer = std::move(*repl::Committer::start(dir.str()));
    files.emplace((dir / ".git/editgate").string());
  }
};

struct Fixture : Ground {
  std::optional<repl::Repl> repl;
  std::shared_ptr<FakePage> page = std::make_shared<FakePage>();
  std::string id, secret, stem;

  explicit Fixture(repl::Options options = {}) {
    repl.emplace(*ws, *committer, io.get_executor(), options);
    repl->set_files(&*files);
    auto welcome = repl->connect(hello(), page);
    REQUIRE(welcome.has_value());
    id = welcome->id;
    secret = welcome->secret;
    stem = *repl->page_name(id);
    io.poll();
  }
  ~Fixture() {
    repl->shutdown();
    io.poll();
    committer->wait_idle();
  }

  // The hello of the fixture's tab; `back`: with the id and secret it was given.
  repl::Hello hello(bool back = false) const {
    repl::Hello h;
    h.name = "tab";
    h.url = h.origin = "http://x";
    h.kind = "browser";
    if (back) {
      h.id = id;
      h.secret = secret;
    }
    return h;
  }

  // An eval whose answer and output land in `heard`.
  void eval(repl::EvalRequest req, Heard& heard) {
    repl->eval(std::move(req), {[&heard](json::object o) { heard.out.push_back(std::move(o)); },
                                [&heard](repl::Answer a) { heard.answer = std::move(a); }});
    io.poll();
  }
  void eval(std::string page_name, std::string code, std::optional<repl::Answer>& answer) {
    repl::EvalRequest req;
    req.page = std::move(page_name);
    req.code = std::move(code);
    repl->eval(std::move(req), {{}, [&answer](repl::Answer a) { answer = std::move(a); }});
    io.poll();
  }
  // An eval of the tab that the page is sent at once: its job number.
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
  // Runs the io_context until the page was last sent a message of `type`.
  void until_sent(std::string_view type) {
    for (int i = 0; i < 100 && (page->sent.empty() || page->sent.back().at("type").as_string() != type); ++i)
      io.run_one_for(std::chrono::milliseconds(100));
    REQUIRE(page->sent.back().at("type").as_string() == type);
  }
  // The commits made so far are made, and their callbacks have run.
  void settle() {
    committer->wait_idle();
    io.poll();
    files->flush();
  }
  // The chat history's last record, once the reply's commit has come back.
  json::object last_record() {
    settle();
    const std::string history = test::read_file(dir / (".git/editgate/pages/" + stem + "/chat_history.jsonl"));
    const std::size_t end = history.rfind('\n', history.size() - 2);
    return json::parse(history.substr(end == std::string::npos ? 0 : end + 1)).as_object();
  }
  // Every record of the chat history, oldest first.
  std::vector<json::object> records() {
    settle();
    std::vector<json::object> out;
    const std::string history = test::read_file(dir / (".git/editgate/pages/" + stem + "/chat_history.jsonl"));
    for (std::size_t at = 0, end; (end = history.find('\n', at)) != std::string::npos; at = end + 1)
      out.push_back(json::parse(history.substr(at, end - at)).as_object());
    return out;
  }
  std::string log_path() const { return "debug/" + stem + ".md"; }
  // The page's log as the REPL wrote it.
  std::string log() const { return test::read_file(dir / log_path()); }
  // The page's log in the REPL's newest commit: its own ref, beside the
  // branch, whose tree's top is debug/ (record/repl_ref.hpp).
  std::string committed_log() {
    settle();
    const std::string refs = test::git_ok(dir.path(), {"for-each-ref", "--format=%(refname)", "refs/editgate/repl/"});
    REQUIRE(!refs.empty());
    return test::git_ok(dir.path(), {"show", refs.substr(0, refs.find('\n')) + ":" + stem + ".md"});
  }
  // The messages of the REPL's commits, newest first.
  std::string commit_messages() {
    settle();
    const std::string refs = test::git_ok(dir.path(), {"for-each-ref", "--format=%(refname)", "refs/editgate/repl/"});
    REQUIRE(!refs.empty());
    return test::git_ok(dir.path(), {"log", "--format=%B", refs.substr(0, refs.find('\n'))});
  }
};

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace repl_harness
