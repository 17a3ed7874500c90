// The answers a page owes (repl/pending_answers.hpp): each callback is
// called once, with the page's answer, its `otherwise` when time is up, or
// why the page went away.
#include "repl/pending_answers.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

using namespace std::chrono_literals;
using repl::Answer;
using repl::Error;
using repl::Failure;
using repl::PendingAnswers;

namespace {

Answer failure(Error code) { return {{}, Failure{code, "why"}}; }

}  // namespace

TEST_CASE("an owed answer is taken once by its number, else its time is up", "[repl][unit]") {
  boost::asio::io_context io;
  PendingAnswers answers;
  std::vector<Answer> first, second;
  answers.await(io.get_executor(), 7, [&](Answer a) { first.push_back(std::move(a)); }, failure(Error::timeout), 20ms);
  answers.await(io.get_executor(), 8, [&](Answer a) { second.push_back(std::move(a)); }, failure(Error::timeout), 20ms);
  CHECK_FALSE(answers.empty());
  CHECK_FALSE(answers.take(std::nullopt));
  CHECK_FALSE(answers.take(9));
  auto seven = answers.take(7);
  REQUIRE(seven);
  CHECK_FALSE(answers.take(7));
  seven({boost::json::object{{"result", "interrupted"}}});
  io.run_for(200ms);
  // 7 was answered; 8 hears its time is up, once.
  REQUIRE(first.size() == 1);
  CHECK_FALSE(first[0].failure);
  REQUIRE(second.size() == 1);
  REQUIRE(second[0].failure);
  CHECK(second[0].failure->code == Error::timeout);
  CHECK(answers.empty());
}

TEST_CASE("a page gone away fails every owed answer, and their timers find nothing", "[repl][unit]") {
  boost::asio::io_context io;
  std::vector<Answer> heard;
  {
    PendingAnswers answers;
    for (std::uint64_t req : {1, 2})
      answers.await(io.get_executor(), req, [&](Answer a) { heard.push_back(std::move(a)); }, failure(Error::timeout),
                    10ms);
    answers.fail_all(failure(Error::context_destroyed));
    CHECK(answers.empty());
    REQUIRE(heard.size() == 2);
    for (const Answer& a : heard) CHECK(a.failure->code == Error::context_destroyed);
    answers.await(io.get_executor(), 3, [&](Answer a) { heard.push_back(std::move(a)); }, failure(Error::timeout), 10ms);
  }
  // Its owner is gone before its time was up: nobody is called.
  io.run_for(100ms);
  CHECK(heard.size() == 2);
}
