// The legacy message format of the agents' WebSocket: {"type":"eval",
// "expression":"1 + 2"} answered {"type":"result","value":3}. Only an
// adapter: a legacy message becomes a request of the op table (its type the
// op, by name, its renamed parameters the op's), and the op's replies are
// reshaped on their way out. No op is implemented twice.
#pragma once

#include "services/error.hpp"
#include "ops/table.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <memory>

namespace ops {

// A message in the legacy shape: a `type` and no `op`.
bool is_legacy(const boost::json::object& msg);

// The legacy message as a request: `op` from its type (eval, clear,
// bindings, load as load-file, actors, modules, kill, unload), `expression`
// as eval's `code`, `pid` as kill's `actor`. Any other type is unknown_op
// naming the legacy types; {"type":"auth"} after the handshake bad_request.
// An op the table does not have is left for check_request to refuse, so a
// legacy type answers as soon as its op exists.
services::Result<boost::json::object> from_legacy(boost::json::object msg);

// Replies in the legacy shape, sent through `send` (on `ex`): no `status`;
// the final one {"type":"result", ...the op's reply} or {"type":"error",
// "message": "<code>: <message>", "reason": "<code>", ...}, with `output`,
// what the request printed, gathered from its `out` messages when the op's
// reply has none (bounded as the page's events are, 1 MiB). A need-input
// message goes out as {"type":"need-input","prompt":...}; other
// intermediate messages are dropped. `finished` runs after the final one.
std::shared_ptr<services::Replies> legacy_replies(boost::asio::any_io_executor ex,
                                        std::function<void(boost::json::object)> send,
                                        std::function<void()> finished);

}  // namespace ops
