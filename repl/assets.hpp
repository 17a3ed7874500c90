// The JavaScript the gateway hands out, built into the binary from js/:
// nothing is read from disk at run time, so the served code is the code
// that was tested.
#pragma once

#include <string>

namespace repl {

// GET /adapter.js: the serializer, the inspector, the page protocol and the browser adapter in one
// closure.
std::string adapter_js();
// The program of the built-in Node page: the same three, then its own host.
std::string node_page_js();

}  // namespace repl
