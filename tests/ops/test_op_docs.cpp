// The protocol reference is kept true by the table it documents: every op a
// client can send has its row in docs/guide/protocol.md's WebSocket table.
#include "ops/table.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

TEST_CASE("every op of the table has its row in the protocol reference (docs/guide/protocol.md)", "[ops]") {
  std::ifstream in(PROTOCOL_MD);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string reference = text.str();
  const std::size_t table = reference.find("| op | params | optional | reply |");
  REQUIRE(table != std::string::npos);
  const std::size_t end = reference.find("\n\n", table);
  const std::string rows = reference.substr(table, end - table);
  for (const ops::OpSpec& op : ops::op_table()) {
    INFO("op " << op.name);
    CHECK(rows.find("\n| `" + std::string(op.name) + "` |") != std::string::npos);
  }
}
