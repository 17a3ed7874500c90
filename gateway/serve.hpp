// `editgate serve`: the gateway's process, from the lock to a clean stop.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gateway {

struct ServeArgs {
  std::string root;  // empty: gateway::find_workspace's
  // None: the workspace's own (services::default_port), so each project's
  // tabs find their gateway whichever started first.
  std::optional<unsigned short> port;
  std::string bind = "127.0.0.1";
  std::vector<std::string> allow_origins;
  unsigned header_timeout_ms = 10'000;
  unsigned body_timeout_ms = 60'000;
  unsigned auth_timeout_ms = 10'000;
  unsigned job_timeout_ms = 60'000;  // a page's job, unless the request says otherwise
  unsigned realm_idle_s = 600;       // a realm with no request this long is closed
  bool node = true;                  // start the built-in Node page
  bool browser = true;               // offer page-open: a headless browser of the gateway's own, started at first use
  std::string browser_program;       // the browser to start; "" finds chromium on PATH
  unsigned owned_pages = 8;          // pages that browser holds open at once
  unsigned settle_ms = 150;          // a saved chat log or inbox file is read once quiet this long
  unsigned pages_per_origin = 64;    // new page instances one origin may make in this run
  unsigned pages_kept = 256;         // pages kept in memory; past it idle disconnected ones are forgotten
  unsigned registry_disconnected = 10;  // disconnected pages debug.md lists, the most recently seen first
  std::string push;  // a remote (name, URL or path) the branch is pushed to after commits settle; "" none
  unsigned push_timeout_s = 30;  // a push is stopped when the remote says nothing for this long
  // Print the person's sign-in URL (it may approve origins); false when
  // standard output is a file, which an agent may read (cli decides).
  bool person_url = true;
};

// Serves until SIGINT, SIGTERM or the shutdown op. Exit code 0 after a
// clean stop, 2 when it cannot start (the message says why).
int run_serve(const ServeArgs& args, std::ostream& out, std::ostream& err);

}  // namespace gateway
