#include "git/error.hpp"

#include "base/named_codes.hpp"

#include <boost/throw_exception.hpp>

#include <ostream>
#include <system_error>

namespace editgit {

std::string_view to_string(Error e) {
  switch (e) {
    case Error::not_found: return "not_found";
    case Error::conflict: return "conflict";
    case Error::locked: return "locked";
    case Error::invalid: return "invalid";
    case Error::io: return "io_error";
    case Error::internal: return "git_error";
    case Error::queue_full: return "commit_queue_full";
    case Error::rejected: return "push_rejected";
    case Error::unreachable: return "remote_unreachable";
    case Error::unauthorized: return "remote_auth_failed";
    case Error::stopped: return "stopped";
  }
  return "git_error";
}

const boost::system::error_category& category() noexcept {
  static const base::NamedCategory c("editgate.git", [](int code) { return to_string(static_cast<Error>(code)); });
  return c;
}

boost::system::error_code make_error_code(Error e) noexcept { return {static_cast<int>(e), category()}; }


}  // namespace editgit
