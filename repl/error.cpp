#include "repl/error.hpp"

#include <stdexcept>

namespace repl {

std::string_view to_string(Error e) {
  switch (e) {
    case Error::not_found: return "not_found";
    case Error::ambiguous: return "ambiguous";
    case Error::in_use: return "in_use";
    case Error::bad_request: return "bad_request";
    case Error::timeout: return "timeout";
    case Error::context_destroyed: return "context_destroyed";
    case Error::interrupted: return "interrupted";
    case Error::log_conflict: return "log_conflict";
    case Error::request_edited: return "request_edited";
    case Error::queue_full: return "queue_full";
    case Error::commit_queue_full: return "commit_queue_full";
    case Error::rate_limited: return "rate_limited";
    case Error::too_many_pages: return "too_many_pages";
    case Error::shutting_down: return "shutting_down";
    case Error::io: return "io";
    case Error::page_error: return "page_error";
    case Error::dialog_open: return "dialog_open";
    case Error::too_many_screenshots: return "too_many_screenshots";
  }
  return "io";
}

std::string failure_text(const Failure& f) {
  return f.code == Error::page_error ? f.message : std::string(to_string(f.code)) + ": " + f.message;
}

void throw_exception_from_error(const Failure& f, const boost::source_location&) {
  throw std::runtime_error(failure_text(f));
}

}  // namespace repl
