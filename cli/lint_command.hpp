// `editgate lint`: chat logs checked as the gateway reads them (repl/lint.hpp).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cli {

struct LintArgs {
  std::vector<std::string> files;
  std::string root = ".";
  std::string format = "text";
};

CLI::App* add_lint(CLI::App& app, LintArgs& a);
int run_lint(const LintArgs& a, std::ostream& out, std::ostream& err);

}  // namespace cli
