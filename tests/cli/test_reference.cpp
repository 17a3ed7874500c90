// The reference in docs/ is the code's own: generated from the op table, the
// MCP tools and the error table, and committed as generated.
#include "cli/reference.hpp"
#include "mcp/tools.hpp"
#include "ops/table.hpp"
#include "services/error.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

TEST_CASE("docs/reference.md is what editgate describe --markdown prints", "[cli]") {
  std::ifstream in(REFERENCE_MD);
  REQUIRE(in);
  std::stringstream committed;
  committed << in.rdbuf();
  INFO("docs/reference.md is out of date: run build/gateway/editgate describe --markdown > docs/reference.md");
  CHECK(committed.str() == cli::reference_markdown());
}

TEST_CASE("every parameter of every op says what it means to that op", "[cli]") {
  for (const ops::OpSpec& op : ops::op_table())
    for (const ops::Param& p : op.params) {
      INFO(op.name << "." << p.name);
      CHECK(!p.doc.empty());
    }
}

TEST_CASE("the reference has every op, tool and error code once", "[cli]") {
  const std::string text = cli::reference_markdown();
  for (const ops::OpSpec& op : ops::op_table())
    CHECK(text.find("### `" + std::string(op.name) + "`\n") != std::string::npos);
  for (const mcp::McpTool& t : mcp::mcp_tools())
    CHECK(text.find("| `" + std::string(t.face->tool) + "` | `" + std::string(t.op->name) + "` |") != std::string::npos);
  std::set<std::string> names;
  for (const services::ErrorInfo& e : services::error_table()) {
    CHECK(names.insert(std::string(e.name)).second);
    CHECK(services::error_named(e.name) == e.code);
    CHECK(services::http_status(e.code) == e.status);
    CHECK(text.find("| `" + std::string(e.name) + "` | " + std::to_string(e.status) + " |") != std::string::npos);
  }
  CHECK(names.size() == static_cast<std::size_t>(services::Error::too_many_screenshots));
}
