// `editgate describe`: what the gateway offers, read from its tables with
// no gateway running: the op table as JSON (what the describe op answers),
// or with --markdown the reference (docs/reference.md): every op with its
// parameters, HTTP route and MCP tool, the MCP tools, and the error codes
// with their HTTP statuses.
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace cli {

struct DescribeArgs {
  bool markdown = false;
};

CLI::App* add_describe(CLI::App& app, DescribeArgs& a);
int run_describe(const DescribeArgs& a, std::ostream& out);

// The reference, as docs/reference.md holds it.
std::string reference_markdown();

}  // namespace cli
