// `editgate page open|go|screenshot|close`: the pages the running gateway
// opens itself in the headless Chromium it owns, each command one
// `POST /v1/pages/<command>` with the port and cookie from its state folder
// (cli/remote.hpp).
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace cli {

struct PageArgs {
  std::string command;  // open, go, screenshot or close: the subcommand given
  std::string root;     // empty: services::find_workspace's
  std::string url;      // open
  std::string page;     // go, screenshot, close; open's --page (navigate it)
  std::string name;     // open's --name: the new page's name stem
  std::string to;       // go: back, forward or reload
  std::string selector;  // screenshot: that element only
  bool full_page = false;
  std::string out_file;  // screenshot: where the PNG is also written
  unsigned timeout_ms = 0;  // open, go; 0: the gateway's default
  std::string agent = "cli";  // open, screenshot, close: who asks, in the log and the commit
  std::string format = "text";
};

CLI::App* add_page(CLI::App& app, PageArgs& a);

// Exit 0 when the op was done; 1 when the gateway answered that it failed
// (its code and message on `err`); 2 when there is no workspace or no
// gateway answers, or the PNG could not be written to --out.
int run_page(const PageArgs& a, std::ostream& out, std::ostream& err);

}  // namespace cli
