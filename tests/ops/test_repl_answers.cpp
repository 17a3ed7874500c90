// The REPL's answers as op replies: a failure reaches the ops as a code,
// mapped to the gateway's, and the door writes error, reason and status
// from that code alone; the message passes untouched.
#include "ops/handlers.hpp"
#include "repl/error.hpp"
#include "services/replies.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <optional>

namespace json = boost::json;
using services::Error;

namespace {

// The final reply as a door gets it.
struct Recorded : services::Replies {
  explicit Recorded(boost::asio::io_context& io) : io(io) {}
  boost::asio::any_io_executor executor() const override { return io.get_executor(); }
  void part(json::object) override {}
  void done(json::object b) override { body = std::move(b); }
  void fail(services::Failure f, json::object b) override {
    failure = std::move(f);
    body = std::move(b);
  }
  boost::asio::io_context& io;
  std::optional<json::object> body;
  std::optional<services::Failure> failure;
};

// `answer` through final_from_repl, and the reply as the WebSocket shows it.
json::object replied(const std::shared_ptr<Recorded>& out, repl::Answer answer) {
  ops::final_from_repl(out)(std::move(answer));
  out->io.poll();
  REQUIRE(out->body);
  json::object shown = *out->body;
  services::mark_final(shown, out->failure);
  return shown;
}

}  // namespace

TEST_CASE("each REPL code is a gateway code, by value", "[ops][unit]") {
  for (int n = static_cast<int>(repl::Error::not_found); n <= static_cast<int>(repl::Error::page_error); ++n) {
    const auto code = static_cast<repl::Error>(n);
    const services::Failure f = ops::from_repl({code, "why"});
    CHECK(f.message == "why");
    // The wire name stays the REPL's, but where the gateway's own names differ.
    const std::string_view expected = code == repl::Error::io                  ? "io_error"
                                      : code == repl::Error::commit_queue_full ? "commit_failed"
                                                                               : repl::to_string(code);
    CHECK(services::to_string(f.code) == expected);
  }
  CHECK(ops::from_repl({repl::Error::timeout, ""}).code == Error::page_timeout);
}

TEST_CASE("a REPL failure crosses as a code: the door writes its text", "[ops][unit]") {
  boost::asio::io_context io;
  auto out = std::make_shared<Recorded>(io);
  // The message holds no "<code>: " for anyone to strip, nor a look-alike.
  const json::object shown =
      replied(out, {{{"page", "p"}, {"job", 7}}, repl::Failure{repl::Error::timeout, "bad_request: no reply"}});
  REQUIRE(out->failure);
  CHECK(out->failure->code == Error::page_timeout);
  CHECK(out->failure->message == "bad_request: no reply");
  CHECK(shown == json::parse(R"({"page":"p","job":7,"error":"timeout: bad_request: no reply","reason":"timeout",
                                  "status":["done","error"]})").get_object());
}

TEST_CASE("a page's exception keeps its own text, and an interrupted eval says so", "[ops][unit]") {
  boost::asio::io_context io;
  auto out = std::make_shared<Recorded>(io);
  const json::object shown = replied(
      out, {{{"page", "p"}, {"interrupted", true}}, repl::Failure{repl::Error::page_error, "Error: SIGINT stopped it"}});
  REQUIRE(out->failure);
  CHECK(out->failure->code == Error::page_error);
  CHECK(shown.at("error") == "Error: SIGINT stopped it");
  CHECK(shown.at("reason") == "page_error");
  CHECK(shown.at("status") == json::array{"done", "error", "interrupted"});
}

TEST_CASE("a REPL answer without a failure is the op's result", "[ops][unit]") {
  boost::asio::io_context io;
  auto out = std::make_shared<Recorded>(io);
  const json::object shown = replied(out, {{{"value", 42}}});
  CHECK_FALSE(out->failure);
  CHECK(shown == json::parse(R"({"value":42,"status":["done"]})").get_object());
}
