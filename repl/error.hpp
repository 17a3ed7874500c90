// Named errors of the REPL: why a job or a page message was refused or
// ended without a value. The gateway passes the code on to agents.
#pragma once

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace repl {

enum class Error {
  not_found = 1,       // no such page (or job)
  ambiguous,           // a bare page name that more than one live page has
  in_use,              // another live socket holds this page instance
  bad_request,         // a malformed message or parameter
  timeout,             // the page did not answer in time
  context_destroyed,   // the page went away (reload, navigation, closed) during the job
  interrupted,         // stopped by an interrupt
  log_conflict,        // the chat log was edited so that the gateway's text could not be placed
  request_edited,      // the request was changed in the log after the gateway accepted it
  queue_full,          // too many jobs waiting for one page
  rate_limited,        // too many new page instances from one origin lately
  too_many_pages,      // one origin made as many page instances as a gateway run allows
  shutting_down,
  commit_queue_full,   // the workspace's commit queue is at its bound: written, not committed
  io,
  page_error,          // the code threw: the eval's outcome, its message the exception's own "Name: message"
  dialog_open,         // the page is held by a dialog of its own (alert, confirm, prompt) until it is closed
  too_many_screenshots,  // an owned page has as many screenshots as a gateway run keeps
};

std::string_view to_string(Error e);

struct Failure {
  Error code = Error::io;
  std::string message;
};

// A failure as the REPL writes it in its own records: "<code>: <message>",
// a page's exception its own "Name: message".
std::string failure_text(const Failure& f);

[[noreturn]] void throw_exception_from_error(const Failure& f, const boost::source_location& loc);

template <class T>
using Result = boost::system::result<T, Failure>;

// The REPL's final answer to an agent's request: the reply's fields, and
// how it failed, as a code the door maps to its own.
struct Answer {
  boost::json::object body;
  std::optional<Failure> failure{};  // none: it succeeded
};

}  // namespace repl
