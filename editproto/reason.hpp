// Statuses and reason codes of the edit protocol. Their spellings
// are the API: clients, tests and CI scripts match on them.
#pragma once

#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>

namespace editproto {

enum class Status { applied, validated, failed, skipped, not_in_context };

enum class Reason {
  none = 0,
  anchor_not_found,
  ambiguous,
  old_mismatch,
  whitespace,
  near_match,
  file_not_found,
  file_exists,
  missing_path,
  incomplete_block,
  malformed_block,
  placeholder,
  no_change,
  path_escape,
  protected_path,
  binary,
  encoding,
  not_in_context,
  too_large,
  io_error,  // the OS refused a read or write (permissions, disk full, ...)
};

std::string_view to_string(Status s);
std::string_view to_string(Reason r);

// The error category that carries a Reason inside an error_code, so module
// boundaries can return boost::system::result<T> with named codes.
const boost::system::error_category& reason_category() noexcept;
boost::system::error_code make_error_code(Reason r) noexcept;

// What went wrong, with the sentence an LLM needs to fix its block.
struct Failure {
  Reason reason = Reason::none;
  std::string detail;
  boost::system::error_code code() const { return make_error_code(reason); }
};

std::ostream& operator<<(std::ostream& os, const Failure& f);

[[noreturn]] void throw_exception_from_error(const Failure& f, const boost::source_location& loc);

template <class T>
using Outcome = boost::system::result<T, Failure>;

}  // namespace editproto

namespace boost::system {
template <>
struct is_error_code_enum<editproto::Reason> : std::true_type {};
}  // namespace boost::system
