// The one way into the ops. Every door (the WebSocket and its legacy
// messages, the dashboard's socket, the HTTP routes, MCP) turns its bytes
// into an op, an envelope and parameters and hands them here; this alone
// checks the parameters against the table, applies the session rule and
// builds the call the handler gets. No Beast, no door's format.
#pragma once

#include "ops/table.hpp"
#include "services/gateway.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ops {

// What a request carries besides its parameters.
struct Envelope {
  // For the run's log line and the recent runs: "WebSocket", "HTTP", "MCP",
  // "dashboard"; a door that streams the text names the run whole
  // ("POST /v1/edits", "inbox fix.md").
  std::string door;
  // The session the request names; none: the connection's own (its id, ""
  // over HTTP: a new session per run).
  std::optional<std::string> session = std::nullopt;
  std::string request_id = {};  // the request's id, serialized; "" without one
  // The op's streamed parameter (HttpRoute::body), read by the door as the
  // op runs: the body of POST /v1/edits. It counts as given.
  std::shared_ptr<TextSource> text = nullptr;
};

// Refuses parameters over the op's size limit (payload_too_large), then
// checks `params` against `op` (missing_param, bad_request; parameters it
// does not take are named in the final reply, and refused whole, before any
// value is judged, by an op that takes `dry_run`: a misspelt dry_run must
// not turn a check into a write), refuses an op of the
// person's (Role::person) to any connection but a dashboard signed in
// with the URL serve printed on its terminal (person_only), then applies the session rule: a
// session the table keeps is any caller's to use (its id addresses it), and
// counts as busy until the request's final reply; one it does not know is
// refused not_found
// by an op that addresses a page (it takes `page`), so a mistyped realm
// never runs code in the default page, and elsewhere names the commits
// only. Then the op's handler runs. Every refusal goes to `out`. Called on
// `out`'s executor, which is the network thread's whenever a session is
// named or the connection has an id (the session table is that thread's);
// a door with neither (the inbox) may call it from its own.
void dispatch(services::Gateway& gw, const OpSpec& op, Envelope env, boost::json::object params,
              std::shared_ptr<ConnectionState> conn, std::shared_ptr<services::Replies> out);

}  // namespace ops
