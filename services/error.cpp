#include "services/error.hpp"

#include "git/error.hpp"

#include "editproto/unicode.hpp"

#include <algorithm>

#include <boost/json/array.hpp>
#include <boost/throw_exception.hpp>

#include <ostream>

namespace gateway {

std::string_view to_string(Error e) {
  switch (e) {
    case Error::unauthorized: return "unauthorized";
    case Error::forbidden_origin: return "forbidden_origin";
    case Error::host_not_allowed: return "host_not_allowed";
    case Error::not_found: return "not_found";
    case Error::ambiguous: return "ambiguous";
    case Error::method_not_allowed: return "method_not_allowed";
    case Error::bad_request: return "bad_request";
    case Error::bad_json: return "bad_json";
    case Error::unknown_op: return "unknown_op";
    case Error::missing_param: return "missing_param";
    case Error::payload_too_large: return "payload_too_large";
    case Error::header_too_large: return "header_too_large";
    case Error::request_timeout: return "request_timeout";
    case Error::conflict: return "conflict";
    case Error::commit_failed: return "commit_failed";
    case Error::locked: return "locked";
    case Error::too_many_connections: return "too_many_connections";
    case Error::too_many_streams: return "too_many_streams";
    case Error::too_many_requests: return "too_many_requests";
    case Error::too_many_pages: return "too_many_pages";
    case Error::slow_client: return "slow_client";
    case Error::shutting_down: return "shutting_down";
    case Error::in_use: return "in_use";
    case Error::io: return "io_error";
    case Error::internal: return "internal";
    case Error::module_not_loaded: return "module_not_loaded";
    case Error::page_error: return "page_error";
    case Error::page_timeout: return "timeout";
    case Error::context_destroyed: return "context_destroyed";
    case Error::interrupted: return "interrupted";
    case Error::log_conflict: return "log_conflict";
    case Error::request_edited: return "request_edited";
    case Error::queue_full: return "queue_full";
    case Error::too_many_sessions: return "too_many_sessions";
    case Error::origin_pending: return "origin_pending";
    case Error::no_remote: return "no_remote";
    case Error::push_rejected: return "push_rejected";
    case Error::remote_unreachable: return "remote_unreachable";
    case Error::remote_timeout: return "remote_timeout";
    case Error::remote_auth_failed: return "remote_auth_failed";
    case Error::rate_limited: return "rate_limited";
  }
  return "internal";
}

std::optional<Error> error_named(std::string_view name) {
  for (int e = static_cast<int>(Error::unauthorized); e <= static_cast<int>(Error::rate_limited); ++e)
    if (to_string(static_cast<Error>(e)) == name) return static_cast<Error>(e);
  return std::nullopt;
}

unsigned http_status(Error e) {
  switch (e) {
    case Error::unauthorized: return 401;
    case Error::forbidden_origin:
    case Error::origin_pending:
    case Error::host_not_allowed: return 403;
    case Error::not_found:
    case Error::no_remote:
    case Error::module_not_loaded: return 404;
    case Error::method_not_allowed: return 405;
    case Error::request_timeout: return 408;
    case Error::conflict:
    case Error::ambiguous:
    case Error::commit_failed:
    case Error::push_rejected:
    case Error::locked:
    case Error::in_use: return 409;
    case Error::payload_too_large: return 413;
    case Error::header_too_large: return 431;
    case Error::too_many_streams:
    case Error::too_many_requests:
    case Error::too_many_pages:
    case Error::too_many_sessions: return 429;
    case Error::slow_client: return 429;
    case Error::too_many_connections:
    case Error::shutting_down: return 503;
    case Error::bad_request:
    case Error::bad_json:
    case Error::unknown_op:
    case Error::missing_param: return 400;
    case Error::io:
    case Error::internal: return 500;
    // The page's exception is what the eval returned: a result.
    case Error::page_error: return 200;
    // The gateway waited for a page, as a proxy for its upstream.
    case Error::page_timeout: return 504;
    // The remote is the gateway's upstream for a push.
    case Error::remote_unreachable:
    case Error::remote_auth_failed: return 502;
    case Error::remote_timeout: return 504;
    case Error::rate_limited: return 429;
    // The page went away or cannot take the job now.
    case Error::context_destroyed:
    case Error::interrupted:
    case Error::log_conflict:
    case Error::request_edited:
    case Error::queue_full: return 503;
  }
  return 500;
}

namespace {
class Category final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "editgate.gateway"; }
  std::string message(int ev) const override { return std::string(to_string(static_cast<Error>(ev))); }
};
}  // namespace

const boost::system::error_category& category() noexcept {
  static const Category c;
  return c;
}

boost::system::error_code make_error_code(Error e) noexcept { return {static_cast<int>(e), category()}; }

std::ostream& operator<<(std::ostream& os, const Failure& f) { return os << to_string(f.code) << ": " << f.message; }

void mark_final(boost::json::object& body, const std::optional<Failure>& failure) {
  // Flags the op set say more about what happened (session-idle); they
  // follow "done" and "error". An interrupted request says so, as nREPL's.
  boost::json::array flags;
  if (const boost::json::value* set = body.if_contains("status"); set && set->is_array())
    for (const boost::json::value& f : set->get_array())
      if (f.is_string() && f.get_string() != "done" && f.get_string() != "error") flags.push_back(f);
  auto status = [&](boost::json::array first) {
    if (failure && failure->code == Error::interrupted) first.emplace_back("interrupted");
    for (auto& f : flags)
      if (std::find(first.begin(), first.end(), f) == first.end()) first.push_back(std::move(f));
    body["status"] = std::move(first);
  };
  if (!failure) return status({"done"});
  // Messages quote what the client sent, which need not be UTF-8.
  const std::string message = editproto::unicode::to_valid_utf8(failure->message);
  body["error"] = failure->code == Error::page_error ? message : std::string(to_string(failure->code)) + ": " + message;
  body["reason"] = to_string(failure->code);
  status({"done", "error"});
}

void mark_http_error(boost::json::object& body, const Failure& failure) {
  body["error"] = to_string(failure.code);
  body["message"] = editproto::unicode::to_valid_utf8(failure.message);
}

void throw_exception_from_error(const Failure& f, const boost::source_location& loc) {
  boost::throw_exception(boost::system::system_error(make_error_code(f.code), f.message), loc);
}

Error from_git(editgit::Error e) {
  switch (e) {
    case editgit::Error::not_found: return Error::not_found;
    case editgit::Error::conflict: return Error::conflict;
    case editgit::Error::locked: return Error::locked;
    case editgit::Error::io: return Error::io;
    case editgit::Error::queue_full: return Error::too_many_requests;
    case editgit::Error::rejected: return Error::push_rejected;
    case editgit::Error::unreachable: return Error::remote_unreachable;
    case editgit::Error::unauthorized: return Error::remote_auth_failed;
    case editgit::Error::invalid:
    case editgit::Error::stopped:  // only the packer's, which no op calls
    case editgit::Error::internal: break;
  }
  return Error::internal;
}

}  // namespace gateway
