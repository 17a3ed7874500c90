#include "services/error.hpp"

#include "base/named_codes.hpp"
#include "git/error.hpp"

#include "editproto/unicode.hpp"

#include <algorithm>

#include <boost/json/array.hpp>
#include <boost/throw_exception.hpp>

#include <iterator>
#include <ostream>

namespace services {

namespace {

// Every code once: its wire name, its HTTP status on every route, and what
// it means (the reference lists them). In the enum's order.
constexpr ErrorInfo errors[] = {
    {Error::unauthorized, "unauthorized", 401, "no cookie, or the wrong one"},
    {Error::forbidden_origin, "forbidden_origin", 403, "a browser page from an origin that is not allowed"},
    {Error::host_not_allowed, "host_not_allowed", 403, "the Host header is not this gateway (DNS rebinding)"},
    {Error::not_found, "not_found", 404, "no such route, op, page, session or streamed edit; nothing to undo"},
    {Error::ambiguous, "ambiguous", 409, "a bare page name that more than one live page has"},
    {Error::method_not_allowed, "method_not_allowed", 405, "the route takes another HTTP method"},
    {Error::bad_request, "bad_request", 400, "a malformed parameter, or one the request may not carry"},
    {Error::bad_json, "bad_json", 400, "a message or body that is not a JSON object"},
    {Error::unknown_op, "unknown_op", 400, "no op of that name"},
    {Error::missing_param, "missing_param", 400, "a required parameter is missing"},
    {Error::payload_too_large, "payload_too_large", 413, "a body, message or block over its limit"},
    {Error::header_too_large, "header_too_large", 431, "the request head is over its limit"},
    {Error::request_timeout, "request_timeout", 408,
     "the gateway waited too long on the client: a request head, a body, the auth or hello message"},
    {Error::conflict, "conflict", 409,
     "git is mid-merge or mid-rebase; a file changed since; the id is already in use"},
    {Error::commit_failed, "commit_failed", 409, "the files are written, the commit was not made (a lock, the disk)"},
    {Error::locked, "locked", 409, "another git process holds the index's or the branch's lock: nothing was written"},
    {Error::too_many_connections, "too_many_connections", 503, "the gateway has as many connections as it takes"},
    {Error::too_many_streams, "too_many_streams", 429, "too many streamed edits open on one WebSocket"},
    {Error::too_many_requests, "too_many_requests", 429,
     "too many requests of one connection wait for their final reply; the commit queue is full; 8 log reads wait "
     "to be rendered; 16 screenshots are being read for dashboards"},
    {Error::too_many_pages, "too_many_pages", 429, "page sockets from one origin, or from all, over their limit"},
    {Error::slow_client, "slow_client", 429, "a WebSocket client left too many replies unread"},
    {Error::shutting_down, "shutting_down", 503, "the gateway is stopping"},
    {Error::in_use, "in_use", 409,
     "a resume of a session another live connection holds; another gateway serves the workspace; the port is "
     "taken"},
    {Error::io, "io_error", 500, "the operating system refused a read or write"},
    {Error::internal, "internal", 500, "a fault of the gateway's own"},
    {Error::module_not_loaded, "module_not_loaded", 404, "unload or reload of a module the page has not loaded"},
    {Error::page_error, "page_error", 200, "the code threw: the eval's result, not a refusal"},
    {Error::page_timeout, "timeout", 504, "the page did not answer in time"},
    {Error::dialog_open, "dialog_open", 409,
     "the page is held by a dialog of its own (alert, confirm, prompt) that only the person or a browser driver can "
     "close; it runs nothing until then"},
    {Error::context_destroyed, "context_destroyed", 503, "the page went away during the job"},
    {Error::interrupted, "interrupted", 503, "the job was interrupted"},
    {Error::log_conflict, "log_conflict", 503, "the chat log was edited so that the reply could not be placed"},
    {Error::request_edited, "request_edited", 503, "the request was edited in the chat log before it ran"},
    {Error::queue_full, "queue_full", 503, "too many jobs wait for the page"},
    {Error::too_many_sessions, "too_many_sessions", 429, "the gateway keeps as many agents' sessions as it may"},
    {Error::origin_pending, "origin_pending", 403,
     "a page from an origin not allowed yet: the person decides on the dashboard"},
    {Error::no_remote, "no_remote", 404, "the push op on a gateway started without --push"},
    {Error::push_rejected, "push_rejected", 409, "the remote refused the push: its branch has commits this one lacks"},
    {Error::remote_unreachable, "remote_unreachable", 502, "the push could not reach the remote; retried with back-off"},
    {Error::remote_timeout, "remote_timeout", 504, "the remote went silent past --push-timeout: the push was stopped"},
    {Error::remote_auth_failed, "remote_auth_failed", 502,
     "the remote refused the push's credentials, or asked for ones there are none of"},
    {Error::rate_limited, "rate_limited", 429, "too many new page instances from one origin lately"},
    {Error::wrong_workspace, "wrong_workspace", 409,
     "a tab whose tag names another workspace than the one this gateway serves: nothing of it is kept"},
    {Error::person_only, "person_only", 403,
     "the person's decision: only a dashboard signed in with the URL serve printed on its terminal makes it"},
    {Error::path_refused, "path_refused", 403,
     "a path the edit engine refuses: absolute, leaving the workspace by '..' or a symlink, inside .git/; at the "
     "dashboard's screenshot route, any path but debug/<page>.screenshots/<n>.png, or one through a symlink"},
    {Error::binary_file, "binary_file", 415,
     "a file edit blocks do not change: binary (a NUL byte in its first 8 KiB) or not UTF-8"},
    {Error::file_too_large, "file_too_large", 413,
     "a file over the edit engine's 256 MiB, or one line over what one file read carries; a screenshot over 8 MiB"},
    {Error::browser_unavailable, "browser_unavailable", 503,
     "the gateway's own browser cannot start: no chromium on PATH (serve --browser names one), or it exited at once"},
    {Error::browser_crashed, "browser_crashed", 503,
     "the gateway's own browser ended under the page: it restarts and reopens its pages, up to 3 times a minute"},
    {Error::browser_error, "browser_error", 502, "the browser refused a command (its own words follow)"},
    {Error::navigation_failed, "navigation_failed", 502,
     "the browser could not load the URL (its network error follows: refused, not resolved, ...)"},
    {Error::not_owned, "not_owned", 409,
     "a page the gateway's browser did not open (a person's tab, the Node page, a realm): only page_open's pages are "
     "navigated, shot or closed"},
    {Error::screenshot_too_large, "screenshot_too_large", 413,
     "a screenshot over 8 MiB of PNG: take an element (selector) or the viewport instead of the full page"},
    {Error::too_many_screenshots, "too_many_screenshots", 429, "a page has 1000 screenshots from this gateway run"},
};

static_assert(std::size(errors) == static_cast<std::size_t>(Error::too_many_screenshots));

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < std::size(errors); ++i)
    if (static_cast<std::size_t>(errors[i].code) != i + 1) return false;
  return true;
}
static_assert(in_enum_order(), "the rows follow the enum, so a code is its row's index");

const ErrorInfo& info(Error e) {
  const auto i = static_cast<std::size_t>(e);
  return i >= 1 && i <= std::size(errors) ? errors[i - 1] : errors[static_cast<std::size_t>(Error::internal) - 1];
}

}  // namespace

std::span<const ErrorInfo> error_table() { return errors; }

std::string_view to_string(Error e) { return info(e).name; }

std::optional<Error> error_named(std::string_view name) {
  for (const ErrorInfo& row : errors)
    if (row.name == name) return row.code;
  return std::nullopt;
}

unsigned http_status(Error e) { return info(e).status; }

const boost::system::error_category& category() noexcept {
  static const base::NamedCategory c("editgate.gateway", [](int code) { return to_string(static_cast<Error>(code)); });
  return c;
}

boost::system::error_code make_error_code(Error e) noexcept { return {static_cast<int>(e), category()}; }


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

}  // namespace services
