#include "git/error.hpp"

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

namespace {
class Category final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "editgate.git"; }
  std::string message(int ev) const override { return std::string(to_string(static_cast<Error>(ev))); }
};
}  // namespace

const boost::system::error_category& category() noexcept {
  static const Category c;
  return c;
}

boost::system::error_code make_error_code(Error e) noexcept { return {static_cast<int>(e), category()}; }

std::ostream& operator<<(std::ostream& os, const Failure& f) { return os << to_string(f.code) << ": " << f.message; }

void throw_exception_from_error(const Failure& f, const boost::source_location& loc) {
  boost::throw_exception(boost::system::system_error(make_error_code(f.code), f.message), loc);
}

}  // namespace editgit
