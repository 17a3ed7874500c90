// Named errors of the gateway's doors. Every refusal a client can meet has a
// code here, the REPL's included; HTTP answers carry it with its status,
// WebSocket replies in their `error` and `reason` fields, so clients match on
// the code and people read the message. How each door shows a code is
// derived from the code alone (http_status, mark_final), never from text.
#pragma once

#include <boost/json/object.hpp>
#include "base/named_codes.hpp"

#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace editgit {
enum class Error;
}

namespace services {

enum class Error {
  // Each code's name, HTTP status and meaning: error_table() (error.cpp),
  // one row per code in this order. The last stays last (the table's size).
  unauthorized = 1, forbidden_origin, host_not_allowed, not_found, ambiguous, method_not_allowed,
  bad_request, bad_json, unknown_op, missing_param, payload_too_large, header_too_large, request_timeout,
  conflict, commit_failed, locked, too_many_connections, too_many_streams, too_many_requests, too_many_pages,
  slow_client, shutting_down, in_use, io, internal, module_not_loaded, page_error, page_timeout, dialog_open,
  context_destroyed, interrupted, log_conflict, request_edited, queue_full, too_many_sessions,
  origin_pending, no_remote, push_rejected, remote_unreachable, remote_timeout, remote_auth_failed,
  rate_limited, wrong_workspace, person_only, path_refused, binary_file, file_too_large,
  browser_unavailable, browser_crashed, browser_error, navigation_failed, not_owned, screenshot_too_large,
  too_many_screenshots,
};

// A code's row in the error table: its wire name (what clients match on),
// the HTTP status that goes with it on every route, and what it means.
struct ErrorInfo {
  Error code;
  std::string_view name;
  unsigned status;
  std::string_view meaning;
};
// Every code, in the enum's order (the reference lists them).
std::span<const ErrorInfo> error_table();

std::string_view to_string(Error e);
// The code a wire name stands for; nullopt for a name that is none.
std::optional<Error> error_named(std::string_view name);
unsigned http_status(Error e);

const boost::system::error_category& category() noexcept;
boost::system::error_code make_error_code(Error e) noexcept;

using Failure = base::Failure<Error, Error::internal>;

// A final reply as the WebSocket and the NDJSON stream show it: "status":
// ["done"], or ["done","error"] with "error": "<code>: <message>" and
// "reason": "<code>". A page's exception keeps its own "Name: message" as
// "error": it is what the code did, not the gateway refusing.
void mark_final(boost::json::object& body, const std::optional<Failure>& failure);
// An HTTP error answer: "error": "<code>", "message"; with http_status(code).
void mark_http_error(boost::json::object& body, const Failure& failure);

// The git layer's codes as the gateway's: conflict (a file changed since;
// git mid-merge), not_found (nothing to undo), a push's refusal and an
// unreachable remote pass as they are.
Error from_git(editgit::Error e);

template <class T>
using Result = boost::system::result<T, Failure>;

}  // namespace services

namespace boost::system {
template <>
struct is_error_code_enum<services::Error> : std::true_type {};
}  // namespace boost::system
