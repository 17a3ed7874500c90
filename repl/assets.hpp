// The JavaScript the gateway hands out, built into the binary from js/:
// nothing is read from disk at run time, so the served code is the code
// that was tested.
#pragma once

#include <string>

namespace repl {

// GET /adapter.js: the serializer, the inspector, the page protocol and the browser adapter in one
// closure.
std::string adapter_js();
// The same, injected by the gateway's own browser into every document of a page it opened, before the
// page's scripts: `config` is a JSON object {src, id, secret} (the adapter's URL as a tag would load it,
// and the instance reserved for the page, so every document it loads is that one page).
std::string owned_adapter_js(const std::string& config, const std::string& source_url);
// The program of the built-in Node page: the same three, then its own host.
std::string node_page_js();

}  // namespace repl
