// The built-in Node page: `editgate serve` runs `node` on the page program
// embedded in the binary, talking over a socket pair on the child's file
// descriptor 3 (one JSON message per line), so a new user has a page at
// once. The child is restarted when it dies, and comes back to its log.
#pragma once

#include "services/realms.hpp"
#include "services/worker.hpp"

#include <memory>
#include <string>

namespace repl {
class Repl;
}

namespace services {

class NodePage;

// The node program on PATH (node, then nodejs); "" when there is none.
std::string find_node();

// Starts the page; stop() ends it. `state_dir` holds the program file.
// The page runs on the worker thread, with the REPL.
std::shared_ptr<NodePage> start_node_page(Worker& worker, repl::Repl& repl, const std::string& root,
                                          const std::string& state_dir, const std::string& node);
void stop_node_page(NodePage& page);
// The page's realms (clone's), as the gateway reaches them; null for none.
RealmHost* realm_host(NodePage* page);

}  // namespace services
