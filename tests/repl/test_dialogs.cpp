// Dialogs in-process, with a fake page (repl_harness.hpp): how an eval asks
// its dialogs to be answered, a dialog its code opened in its reply, its
// events and its log, and the page's own dialog holding the page: its
// state, evals and interrupts refused meanwhile, the page back after it.
#include "repl_harness.hpp"

namespace json = boost::json;
using repl_harness::contains;
using repl_harness::Fixture;
using repl_harness::Heard;

namespace {

repl::EvalRequest request(std::string code) {
  repl::EvalRequest req;
  req.page = "tab";
  req.code = std::move(code);
  return req;
}

json::object page_entry(Fixture& f) {
  for (const json::value& p : f.repl->pages())
    if (p.at("page") == f.stem.c_str()) return p.as_object();
  FAIL("the page is not listed");
  return {};
}

}  // namespace

TEST_CASE("dialogs: an eval tells the page how to answer its dialogs, dismiss by default", "[repl][unit]") {
  Fixture f;
  Heard plain, accepting;
  f.eval(request("confirm('a')"), plain);
  CHECK(f.page->sent.back().at("dialog") == "dismiss");
  CHECK_FALSE(f.page->sent.back().contains("prompt_text"));
  const std::uint64_t job = f.page->sent.back().at("job").to_number<std::uint64_t>();
  f.from_page({{"type", "result"}, {"job", job}, {"ok", true}, {"value", false}});
  repl::EvalRequest req = request("prompt('b')");
  req.accept_dialogs = true;
  req.prompt_text = "typed";
  f.eval(std::move(req), accepting);
  CHECK(f.page->sent.back().at("dialog") == "accept");
  CHECK(f.page->sent.back().at("prompt_text") == "typed");
}

TEST_CASE("dialogs: one the code opened is in the eval's out messages, its reply and its log", "[repl][unit]") {
  Fixture f;
  Heard heard;
  f.eval(request("confirm('Delete all?') ? 1 : prompt('Name?', 'Ann')"), heard);
  const std::uint64_t job = f.page->sent.back().at("job").to_number<std::uint64_t>();
  f.from_page({{"type", "dialog"}, {"job", job}, {"kind", "confirm"}, {"message", "Delete all?"},
               {"answer", "dismiss"}, {"value", false}});
  f.from_page({{"type", "dialog"}, {"job", job}, {"kind", "prompt"}, {"message", "Name?"}, {"default", "Ann"},
               {"answer", "dismiss"}, {"value", nullptr}});
  // Another job's dialog, or one of no known kind, is not this eval's.
  f.from_page({{"type", "dialog"}, {"job", job + 7}, {"kind", "alert"}, {"message", "x"}, {"answer", "accept"}});
  f.from_page({{"type", "dialog"}, {"job", job}, {"kind", "print"}, {"message", "x"}, {"answer", "accept"}});
  const json::object confirm{{"kind", "confirm"}, {"message", "Delete all?"}, {"answer", "dismiss"}, {"value", false}};
  const json::object prompt{{"kind", "prompt"},   {"message", "Name?"}, {"answer", "dismiss"},
                            {"default", "Ann"}, {"value", nullptr}};
  REQUIRE(heard.out.size() == 2);
  CHECK(heard.out[0] == json::object{{"dialog", confirm}, {"page", f.stem}});
  CHECK(heard.out[1].at("dialog") == prompt);
  f.from_page({{"type", "result"}, {"job", job}, {"ok", true}, {"value", nullptr}});
  REQUIRE(heard.answer);
  CHECK(heard.answer->body.at("dialogs") == json::array{confirm, prompt});
  CHECK_FALSE(heard.answer->body.contains("output"));  // a dialog is not something the code wrote
  const std::string log = f.log();
  CHECK(contains(log, "```Text dialog\nconfirm(\"Delete all?\") answered dismiss (false)\n```"));
  CHECK(contains(log, "prompt(\"Name?\", \"Ann\") answered dismiss (null)"));
}

TEST_CASE("dialogs: the page's own dialog holds it: its state says so, evals and interrupts are told why",
          "[repl][unit]") {
  Fixture f;
  CHECK(page_entry(f).at("state") == "idle");
  f.from_page({{"type", "dialog"}, {"job", nullptr}, {"open", true}, {"kind", "alert"}, {"message", "Saved!"}});
  const json::object held = page_entry(f);
  CHECK(held.at("state") == "dialog");
  CHECK(held.at("dialog").at("kind") == "alert");
  CHECK(held.at("dialog").at("message") == "Saved!");
  CHECK(f.repl->actors().at(0).at("state") == "dialog");

  // An eval is refused at once, never sent to a page that cannot read it.
  const std::size_t sent = f.page->sent.size();
  Heard refused;
  f.eval(request("1 + 1"), refused);
  REQUIRE(refused.answer);
  REQUIRE(refused.answer->failure);
  CHECK(refused.answer->failure->code == repl::Error::dialog_open);
  CHECK(contains(refused.answer->failure->message, "alert(\"Saved!\")"));
  CHECK(f.page->sent.size() == sent);
  std::optional<repl::Answer> interrupted;
  f.repl->interrupt("tab", [&](repl::Answer a) { interrupted = std::move(a); });
  REQUIRE(interrupted);
  CHECK(interrupted->body.at("result") == "not-interruptible");
  CHECK(interrupted->body.at("dialog").at("kind") == "alert");
  std::optional<repl::Answer> completed;
  f.repl->complete("tab", "document.ti", [&](repl::Answer a) { completed = std::move(a); });
  REQUIRE(completed);
  CHECK(completed->failure->code == repl::Error::dialog_open);

  // Closed: idle again, and the next eval runs at once.
  f.from_page({{"type", "dialog"}, {"job", nullptr}, {"open", false}, {"kind", "alert"}, {"message", "Saved!"},
               {"answer", "accept"}});
  CHECK(page_entry(f).at("state") == "idle");
  CHECK(page_entry(f).at("dialog").is_null());
  Heard next;
  f.eval(request("2 + 2"), next);
  CHECK(f.page->sent.back().at("type") == "eval");
  CHECK_FALSE(next.answer);
}

TEST_CASE("dialogs: a job queued when the page's own dialog opens is refused, and a closed tab's dialog goes with it",
          "[repl][unit]") {
  Fixture f;
  Heard running, queued;
  f.eval(request("await sleep(1000)"), running);
  f.eval(request("1"), queued);
  CHECK_FALSE(queued.answer);
  f.from_page({{"type", "dialog"}, {"job", nullptr}, {"open", true}, {"kind", "confirm"}, {"message", "Leave?"}});
  REQUIRE(queued.answer);
  CHECK(queued.answer->failure->code == repl::Error::dialog_open);
  CHECK_FALSE(running.answer);
  f.repl->disconnect(f.id, f.page.get());
  f.io.poll();
  CHECK(page_entry(f).at("state") == "disconnected");
  CHECK(page_entry(f).at("dialog").is_null());
}
