#include "repl/modules.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace repl;
using namespace std::chrono_literals;

namespace {

LoadedModule module(std::string path, std::string blob = "b1") {
  return {std::move(path), std::move(blob), std::chrono::system_clock::time_point(1'700'000'000s), 5};
}

}  // namespace

TEST_CASE("a module is named by its path, or by its file name when one module has it", "[repl]") {
  Modules m;
  m.loaded(module("examples/counter.js"));
  m.loaded(module("lib/util.js"));
  REQUIRE(m.find("counter"));
  CHECK(m.find("counter")->path == "examples/counter.js");
  CHECK(m.find("lib/util.js"));
  CHECK_FALSE(m.find("counter.js"));
  // Two files called util: only their paths name them.
  m.loaded(module("src/util.js"));
  CHECK_FALSE(m.find("util"));
  CHECK(m.find("src/util.js"));
  CHECK(m.unload("lib/util.js"));
  CHECK(m.find("util"));
  CHECK_FALSE(m.unload("lib/util.js"));
}

TEST_CASE("loading a file again replaces its entry, and the list keeps the newest past its bound", "[repl]") {
  Modules m;
  m.loaded(module("a.js", "old"));
  m.loaded(module("b.js"));
  m.loaded(module("a.js", "new"));
  const auto now = std::chrono::system_clock::time_point(1'700'000'090s);
  boost::json::array listed = m.listed(now);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].at("source_file") == "b.js");
  CHECK(listed[1].at("blob") == "new");
  CHECK(listed[1].at("name") == "a");
  CHECK(listed[1].at("load_time") == 1'700'000'000);
  CHECK(listed[1].at("time_ago") == "1m ago");
  for (std::size_t i = 0; i < Modules::most; ++i) m.loaded(module("f" + std::to_string(i) + ".js"));
  CHECK(m.listed(now).size() == Modules::most);
  CHECK(m.forgotten() == 2);
  CHECK_FALSE(m.find("a.js"));
  CHECK(m.find("f0.js"));
}

TEST_CASE("time ago in the largest whole unit", "[repl]") {
  CHECK(time_ago(0s) == "0s ago");
  CHECK(time_ago(59s) == "59s ago");
  CHECK(time_ago(3599s) == "59m ago");
  CHECK(time_ago(7200s) == "2h ago");
  CHECK(time_ago(-5s) == "0s ago");
  CHECK(time_ago(200'000s) == "2d ago");
}
