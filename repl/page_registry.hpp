// The page registry's pure part: debug.md, the list of pages an agent
// opens first. Repl's page registry (page_registry.cpp) keeps the pages
// themselves: by instance id, found by name, admitted per origin, and
// forgotten past Options::max_pages_kept.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace repl {

struct RegistryLine {
  std::string stem, url, log;
  std::string state;  // "idle", "executing job 7, ...", "disconnected, job 7 completed in 5ms"
  std::chrono::system_clock::time_point last_seen;
  bool live = false;
};

// debug.md: every live page in the order given (at most `max_live`), then
// the disconnected ones seen last (at most `max_disconnected`); the rest
// are counted in one line.
std::string registry_text(std::vector<RegistryLine> pages, std::size_t max_live, std::size_t max_disconnected);

}  // namespace repl
