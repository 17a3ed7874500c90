// The protocol reference is kept true by the table it documents: every op a
// client can send has its row in README.md's WebSocket table.
#include "gateway/op_table.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

TEST_CASE("every op of the table has its row in the README's protocol reference", "[gateway]") {
  std::ifstream in(README_MD);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const std::size_t table = readme.find("| op | params | optional | reply |");
  REQUIRE(table != std::string::npos);
  const std::size_t end = readme.find("\n\n", table);
  const std::string rows = readme.substr(table, end - table);
  for (const gateway::OpSpec& op : gateway::op_table()) {
    INFO("op " << op.name);
    CHECK(rows.find("\n| `" + std::string(op.name) + "` |") != std::string::npos);
  }
}
