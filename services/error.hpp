// Named errors of the gateway's doors. Every refusal a client can meet has a
// code here, the REPL's included; HTTP answers carry it with its status,
// WebSocket replies in their `error` and `reason` fields, so clients match on
// the code and people read the message. How each door shows a code is
// derived from the code alone (http_status, mark_final), never from text.
#pragma once

#include <boost/json/object.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace editgit {
enum class Error;
}

namespace gateway {

enum class Error {
  unauthorized = 1,      // no cookie, or the wrong one
  forbidden_origin,      // a browser page from an origin that is not allowed
  host_not_allowed,      // Host is not this gateway (DNS rebinding)
  not_found,             // no such route, op or streamed edit; no gateway runs (its clients)
  ambiguous,             // a bare page name that more than one live page has
  method_not_allowed,
  bad_request,           // a malformed or unknown parameter
  bad_json,              // a message that is not a JSON object
  unknown_op,
  missing_param,
  payload_too_large,     // body, message or block over its limit
  header_too_large,
  request_timeout,       // the gateway waited too long on a client: a request head, a body, an auth or hello message
  conflict,              // git is mid-merge/rebase; the id is already in use
  commit_failed,         // the files are written, the commit was not made (a lock, the disk)
  locked,                // another git process holds the index's or the branch's lock: nothing was written
  too_many_connections,
  too_many_streams,      // streamed edits open on one WebSocket
  too_many_requests,     // requests of one WebSocket still waiting for their final reply
  too_many_pages,        // page sockets from one origin, or from all, over their limit
  slow_client,           // a WebSocket client left too many replies unread
  shutting_down,
  in_use,                // another gateway serves this workspace; the port is taken
  io,                    // the operating system refused a read or write
  internal,
  module_not_loaded,     // unload or reload of a module the page has not loaded
  // What became of an eval, as the REPL names it (repl::Error, and the
  // page's own exception). They reach clients through the eval ops.
  page_error,            // the code threw: the eval's result, not a refusal (HTTP 200)
  page_timeout,          // the page did not answer in time; named "timeout" as the REPL names it
  context_destroyed,     // the page went away during the job
  interrupted,
  log_conflict,          // the chat log was edited so that the reply could not be placed
  request_edited,
  queue_full,            // too many jobs wait for the page
  too_many_sessions,     // the gateway keeps as many agents' sessions as it may
  origin_pending,        // a page from an origin not allowed yet: the person decides on the dashboard
  no_remote,             // the push op on a gateway started without --push
  push_rejected,         // the remote refused the push: its branch has commits this one lacks
  remote_unreachable,    // the push could not reach the remote; the pusher retries with back-off
  remote_timeout,        // the remote went silent past --push-timeout: the push was stopped; retried as unreachable
  remote_auth_failed,    // the remote refused the push's credentials, or asked for ones there are none of
  rate_limited,          // too many new page instances from one origin lately; stays last (error_named)
};

// The code's wire name, one per code (what clients match on).
std::string_view to_string(Error e);
// The code a wire name stands for; nullopt for a name that is none.
std::optional<Error> error_named(std::string_view name);
// The HTTP status that goes with the error, on every route.
unsigned http_status(Error e);

const boost::system::error_category& category() noexcept;
boost::system::error_code make_error_code(Error e) noexcept;

struct Failure {
  Error code = Error::internal;
  std::string message;
};

std::ostream& operator<<(std::ostream& os, const Failure& f);

// A final reply as the WebSocket and the NDJSON stream show it: "status":
// ["done"], or ["done","error"] with "error": "<code>: <message>" and
// "reason": "<code>". A page's exception keeps its own "Name: message" as
// "error": it is what the code did, not the gateway refusing.
void mark_final(boost::json::object& body, const std::optional<Failure>& failure);
// An HTTP error answer: "error": "<code>", "message"; with http_status(code).
void mark_http_error(boost::json::object& body, const Failure& failure);
[[noreturn]] void throw_exception_from_error(const Failure& f, const boost::source_location& loc);

// The git layer's codes as the gateway's: conflict (a file changed since;
// git mid-merge), not_found (nothing to undo), a push's refusal and an
// unreachable remote pass as they are.
Error from_git(editgit::Error e);

template <class T>
using Result = boost::system::result<T, Failure>;

}  // namespace gateway

namespace boost::system {
template <>
struct is_error_code_enum<gateway::Error> : std::true_type {};
}  // namespace boost::system
