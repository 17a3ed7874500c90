// Named errors of the git layer. libgit2's own message rides along in
// Failure::message, so a user sees both what kind of thing failed and why.
#pragma once

#include "base/named_codes.hpp"

#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>

namespace editgit {

enum class Error {
  not_found = 1,  // no such repository, commit, path or reference
  conflict,       // HEAD kept moving under us; or undo refused (the files changed since)
  locked,         // another git process holds index.lock or a ref lock
  invalid,        // a bad argument: a path outside the repository, a malformed id
  io,             // the operating system refused a read or write
  internal,       // any other libgit2 failure
  queue_full,     // the commit queue holds its bound of waiting commits, or has stopped
  rejected,       // a push the remote refused: its branch moved on (not a fast-forward), or its own rule
  unreachable,    // a push that could not reach the remote, or lost it midway (the network, the server)
  unauthorized,   // a push the remote refused the credentials of, or asked for ones there are none of
  stopped,        // a long call its owner stopped midway (a pack when the gateway stops): nothing changed
};

std::string_view to_string(Error e);
const boost::system::error_category& category() noexcept;
boost::system::error_code make_error_code(Error e) noexcept;

using Failure = base::Failure<Error, Error::internal>;

template <class T>
using Result = boost::system::result<T, Failure>;

}  // namespace editgit

namespace boost::system {
template <>
struct is_error_code_enum<editgit::Error> : std::true_type {};
}  // namespace boost::system
